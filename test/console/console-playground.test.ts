// The console's playground in headless Chromium against the built service: the CodeMirror editor
// and its packages served by the service (no other origin, the import map allowed by its hash), a
// diagnostic that appears while an error is typed and goes once it is fixed, de-DE and zh-CN
// keywords highlighted with the service's tables, the module shown in another locale (asking first
// once edited; Escape cancels), a context checked against the function's parameters before it is
// sent, an evaluation's trace as a tree that folds by keyboard, test cases passed and failed, a
// MEMBER's shadow deploy (no active deploy offered) and an ADMIN's active deploy, the keyboard path
// out of the editor, contrast, and a phone's width. With CONSOLE_SCREENSHOTS=1 the screenshots go
// to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { CONSOLE_CONTENT_SECURITY_POLICY, consolePageContentSecurityPolicy } from '../../src/api/routes/console.js';
import { describeWithChromium, type BearerCall } from '../support/index.js';
import {
  closeConsoleSuite,
  DESKTOP,
  fitsWidth,
  heading,
  launchConsoleBrowser,
  lowContrastText,
  openConsolePage,
  PHONE,
  SCREENSHOTS,
  startConsoleService,
  STEP_TIMEOUT_MS,
  unnamedControls,
  type ConsoleService,
  type Viewport,
} from './support/console-harness.js';

// The module the playground starts with (playground-view.js): fee calls double above 100; the
// context box starts with fee's.
const STARTING_MODULE = 'playground.example';
const SHADOWED_MODULE = 'playground.shadowed';
const SHADOWED_V1 = `Module ${SHADOWED_MODULE}.

Rule price given amount as Int, produce Int:
  Return amount.
`;
const SHADOWED_V2 = SHADOWED_V1.replace('Return amount.', 'Return amount times 2.');

const WITH_ERROR = `Module playground.typo.

Rule fee given amount as Int, produce Int:
  Return amonut.
`;
const FIXED = WITH_ERROR.replace('amonut', 'amount');

const GERMAN = `Modul playground.gebuehr.

Regel gebuehr gegeben betrag als Ganzzahl, liefert Ganzzahl:
  Wenn betrag ist größer als 100:
    Liefere betrag mal 2.
  Liefere betrag.
`;
const CHINESE = `模块 playground.fee。

规则 fee 给定 amount 为 整数，产出 整数：
  如果 amount 大于 100：
    返回 amount 乘以 2。
  返回 amount。
`;

describeWithChromium('the operator console (playground)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    service = await startConsoleService('console-playground');
    ({ base, call, tenant } = service);
    // A shadow rolls out beside an active version.
    const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SHADOWED_V1, locale: 'en-US' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(() => closeConsoleSuite(browser, service));

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });

  async function openPlayground(viewport: Viewport, role: Role) {
    const opened = await openConsole(viewport, role);
    await opened.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Playground', exact: true }).click();
    await opened.page.locator('.cm-content').waitFor();
    await until(() => checkStatus(opened.page)).toBe(`No problems: ${STARTING_MODULE} compiles.`);
    return opened;
  }

  /** Waits for a state the service's answers bring about (a check compiles off the event loop). */
  const until = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: STEP_TIMEOUT_MS });
  const editor = (page: Page) => page.locator('.cm-content');
  const checkStatus = (page: Page) => page.locator('#playground-check-status').textContent();
  const editorText = (page: Page) => page.locator('.cm-content .cm-line').allTextContents().then((lines) => lines.join('\n'));
  const keywordsShown = (page: Page) => page.locator('.cm-content .tok-keyword').allTextContents();
  /**
   * Replaces the editor's text as typing would, and waits for the check of the new text. The old
   * text goes with Backspace (the editor's own command): typing over a selection of several lines
   * lets the browser's editing write style attributes, which the page's policy refuses (and logs).
   */
  async function typeSource(page: Page, source: string, status: string | RegExp) {
    await editor(page).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(source);
    await until(() => editorText(page)).toBe(source);
    await until(() => checkStatus(page)).toMatch(status);
  }
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.className || '');

  it('serves the editor from the service and checks as you type: a diagnostic for an error, none once fixed', async () => {
    const vendorAnswers: Array<[string, number]> = [];
    const { context, page } = await openConsole(DESKTOP, 'MEMBER');
    page.on('response', (response) => {
      if (response.url().includes('/console/vendor/')) vendorAnswers.push([new URL(response.url()).pathname, response.status()]);
    });
    try {
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Playground', exact: true }).click();
      await until(() => checkStatus(page)).toBe(`No problems: ${STARTING_MODULE} compiles.`);
      expect(await heading(page)).toBe('Playground');
      expect(await page.getByRole('link', { name: 'Playground', exact: true }).getAttribute('aria-current')).toBe('page');
      // CodeMirror's packages came from the service, each found through the import map.
      expect(vendorAnswers).toContainEqual(['/console/vendor/codemirror-view.js', 200]);
      expect(vendorAnswers).toContainEqual(['/console/vendor/find-cluster-break.js', 200]);
      expect(vendorAnswers.every(([, status]) => status === 200)).toBe(true);
      // The starting module in en-US, its keywords coloured.
      expect(await page.getByLabel('Locale', { exact: true }).inputValue()).toBe('en-US');
      expect(await keywordsShown(page)).toEqual(expect.arrayContaining(['Module', 'Rule', 'given', 'as', 'Int', 'produce', 'If', 'is greater than', 'Return', 'times']));

      await typeSource(page, WITH_ERROR, /^1 error: the module does not compile\.$/);
      const row = page.locator('.playground-diagnostics tbody tr');
      expect(await row.count()).toBe(1);
      expect(await row.locator('td').nth(0).textContent()).toBe('line 4, column 10');
      expect(await row.locator('td').nth(1).textContent()).toMatch(/^PL\d{4}$/);
      expect(await row.locator('td').nth(3).textContent()).toContain('amonut');
      // The editor marks the word itself.
      await until(() => page.locator('.cm-lintRange-error').allTextContents()).toEqual(['amonut']);

      await typeSource(page, FIXED, 'No problems: playground.typo compiles.');
      expect(await page.locator('.playground-diagnostics tbody tr').count()).toBe(0);
      await until(() => page.locator('.cm-lintRange-error').count()).toBe(0);
      expect(await unnamedControls(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('allows the import map by its hash and the editor\'s styles by the page\'s nonce, nothing else inline', async () => {
    const answer = await fetch(`${base}/console`);
    const html = await answer.text();
    // A fresh nonce for each page: it lets the editor's style element through, and nothing else.
    const styleNonce = /<meta name="style-nonce" nonce="([^"]+)">/.exec(html)![1]!;
    expect(answer.headers.get('content-security-policy')).toBe(consolePageContentSecurityPolicy(styleNonce));
    const again = await (await fetch(`${base}/console`)).text();
    expect(again).not.toContain(styleNonce);
    const map = /<script type="importmap">(.*?)<\/script>/s.exec(html)![1]!;
    const hash = `'sha256-${Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(map))).toString('base64')}'`;
    expect(CONSOLE_CONTENT_SECURITY_POLICY).toContain(`script-src 'self' ${hash};`);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    const imports = JSON.parse(map).imports as Record<string, string>;
    expect(imports['@codemirror/state']).toBe('/console/vendor/codemirror-state.js');
    // Every module the map names is served, as JavaScript, from this process.
    for (const [specifier, path] of Object.entries(imports)) {
      const file = await fetch(`${base}${path}`);
      expect([specifier, file.status, file.headers.get('content-type')]).toEqual([specifier, 200, 'text/javascript; charset=utf-8']);
    }
    expect((await fetch(`${base}/console/vendor/..%2Fpackage.json`)).status).toBe(404);
  }, 120_000);

  it('highlights de-DE and zh-CN keywords in the locale the module\'s header names', async () => {
    const { context, page } = await openPlayground(DESKTOP, 'MEMBER');
    try {
      await typeSource(page, GERMAN, 'No problems: playground.gebuehr compiles.');
      expect(await page.getByLabel('Locale', { exact: true }).inputValue()).toBe('de-DE');
      await until(() => keywordsShown(page)).toEqual(['Modul', 'Regel', 'gegeben', 'als', 'Ganzzahl', 'liefert', 'Ganzzahl', 'Wenn', 'ist größer als', 'Liefere', 'mal', 'Liefere']);

      await typeSource(page, CHINESE, 'No problems: playground.fee compiles.');
      expect(await page.getByLabel('Locale', { exact: true }).inputValue()).toBe('zh-CN');
      await until(() => keywordsShown(page)).toEqual(['模块', '规则', '给定', '为', '整数', '产出', '整数', '如果', '大于', '返回', '乘以', '返回']);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'playground-zh.png') });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('shows the module in another locale, asking first once the text was edited', async () => {
    const { context, page } = await openPlayground(DESKTOP, 'MEMBER');
    try {
      // Not edited: printed in German at once.
      await page.getByLabel('Locale', { exact: true }).selectOption('de-DE');
      await until(() => editorText(page)).toMatch(/^Modul playground\.example\./);
      expect(await page.locator('dialog').count()).toBe(0);
      await until(() => keywordsShown(page)).toContain('Regel');
      await until(() => checkStatus(page)).toBe(`No problems: ${STARTING_MODULE} compiles.`);

      // Edited: a confirmation first, Cancel focused; Escape keeps the text and the locale.
      await editor(page).press('End');
      await page.keyboard.type(' # bearbeitet');
      const edited = await editorText(page);
      await page.getByLabel('Locale', { exact: true }).selectOption('zh-CN');
      const dialog = page.getByRole('dialog', { name: 'Show the module in zh-CN?' });
      await dialog.waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      expect(await lowContrastText(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await until(() => page.getByLabel('Locale', { exact: true }).inputValue()).toBe('de-DE');
      expect(await editorText(page)).toBe(edited);

      await page.getByLabel('Locale', { exact: true }).selectOption('zh-CN');
      await dialog.getByRole('button', { name: 'Show in zh-CN' }).click();
      // The formatter's print (the comment typed after the header goes above it).
      await until(() => editorText(page)).toMatch(/^# bearbeitet\n模块 playground\.example。\n/);
      expect(await page.getByLabel('Locale', { exact: true }).inputValue()).toBe('zh-CN');
      await until(() => keywordsShown(page)).toContain('规则');
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('checks the context against the function\'s parameters before sending, and shows the trace as a tree', async () => {
    const evaluations: string[] = [];
    const { context, page } = await openPlayground(DESKTOP, 'MEMBER');
    page.on('request', (request) => {
      if (request.url().includes('/evaluate-source')) evaluations.push(request.url());
    });
    try {
      const contextBox = page.getByLabel('Context (JSON)');
      const problems = page.locator('#playground-context-problems li');
      // The first function and its context as the page starts: nothing to say.
      expect(await page.getByLabel('Function').inputValue()).toBe('fee');
      expect(await problems.count()).toBe(0);
      await page.getByLabel('Function').selectOption('double');
      expect(await problems.allTextContents()).toEqual(['Missing parameter x (Int).', 'Unknown parameter amount: double takes x.']);
      await page.getByLabel('Function').selectOption('fee');
      await contextBox.fill('{ "amout": 150 }');
      expect(await problems.allTextContents()).toEqual(['Missing parameter amount (Int).', 'Unknown parameter amout: fee takes amount.']);
      expect(await contextBox.getAttribute('aria-invalid')).toBe('true');
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await until(() => focusedId(page)).toBe('playground-context');
      await contextBox.fill('{ "amount": ');
      expect(await problems.allTextContents()).toEqual([expect.stringMatching(/^The context is not JSON: /)]);
      await contextBox.fill('[1, 2]');
      expect(await problems.allTextContents()).toEqual(['An array gives the parameters in order: fee takes 1, the array has 2.']);
      // Nothing was sent while the context was wrong.
      expect(evaluations).toEqual([]);

      await page.getByRole('button', { name: 'Fill in the parameters' }).click();
      expect(JSON.parse(await contextBox.inputValue())).toEqual({ amount: 0 });
      await contextBox.fill('{ "amount": 150 }');
      expect(await problems.count()).toBe(0);
      await page.getByRole('button', { name: 'Evaluate' }).click();
      await until(() => page.locator('.result-json').textContent()).toBe('300');
      expect(evaluations).toEqual([`${base}/api/v1/policies/evaluate-source?trace=true`]);

      // fee decided the If, called double (whose return is inside the call's level), and returned.
      const tree = page.getByTestId('trace');
      expect(await tree.locator('> summary').textContent()).toBe('Decision trace of fee (4 steps)');
      expect(await tree.locator('> ol > li').evaluateAll((items) => items.map((item) => item.className))).toEqual(['trace-entry trace-if', 'trace-entry trace-call', 'trace-entry trace-return']);
      const callLevel = tree.locator('li.trace-call > details');
      expect(await callLevel.locator('> summary').textContent()).toBe('call double(amount) → 300 in fee');
      expect(await callLevel.locator('> ol > li').allTextContents()).toEqual(['return x times 2 → 300 in double']);
      // The call's level folds by keyboard.
      await callLevel.locator('> summary').focus();
      await page.keyboard.press('Enter');
      expect(await callLevel.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
      await page.keyboard.press('Space');
      expect(await callLevel.evaluate((details) => (details as HTMLDetailsElement).open)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'playground.png'), fullPage: true });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('runs the tests: every case listed, passed or failed with what it expected and got', async () => {
    const { context, page } = await openPlayground(DESKTOP, 'MEMBER');
    try {
      await page.getByRole('button', { name: 'Run tests' }).click();
      await until(() => page.getByTestId('tests-summary').textContent()).toBe('2 passed, 0 failed.');
      const tests = page.getByLabel('Test cases (.tests.json)');
      await tests.fill((await tests.inputValue()).replace('"expect": 300', '"expect": 301'));
      await page.getByRole('button', { name: 'Run tests' }).click();
      await until(() => page.getByTestId('tests-summary').textContent()).toBe('1 passed, 1 failed.');
      const failed = page.locator('.tests-outcome tbody tr[data-outcome="failed"]');
      expect(await failed.locator('td').allTextContents()).toEqual(['large claims pay double', 'fee', 'failed', '301', '300', 'expected 301, got 300']);
      expect(await page.locator('.tests-outcome tbody tr[data-outcome="passed"] td').nth(2).textContent()).toBe('passed');
      // Tests that are not JSON are said under the box, and nothing runs.
      await tests.fill('{ "cases": [');
      await page.getByRole('button', { name: 'Run tests' }).click();
      expect(await page.locator('#playground-tests-error').textContent()).toMatch(/^The tests are not JSON: /);
      await until(() => focusedId(page)).toBe('playground-tests');
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('lets a MEMBER deploy the module as a shadow with its tests, and offers no active deploy', async () => {
    const { context, page } = await openPlayground(DESKTOP, 'MEMBER');
    try {
      await typeSource(page, SHADOWED_V2, `No problems: ${SHADOWED_MODULE} compiles.`);
      await page.getByLabel('Test cases (.tests.json)').fill(JSON.stringify({ cases: [{ name: 'doubles', rule: 'price', context: { amount: 2 }, expect: 4 }] }));
      expect(await page.getByLabel(/^Active/).isDisabled()).toBe(true);
      expect(await page.getByLabel(/^Canary/).isDisabled()).toBe(true);
      expect(await page.getByLabel(/^Shadow/).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      const outcome = page.getByTestId('deploy-outcome');
      await until(() => outcome.locator('.outcome-title').textContent()).toBe(`Deployed ${SHADOWED_MODULE} version 2.`);
      expect(await outcome.textContent()).toContain('Rolled out in the shadow');
      expect(await outcome.textContent()).toContain('All 1 test cases passed first.');
      // Version 2 runs in the shadow of version 1, which still answers.
      const rollout = await call<{ mode: string; version: number; stableVersion: number; status: string; startedBy: string }>(tenant, 'VIEWER', 'GET', `/api/v1/policies/${SHADOWED_MODULE}/rollout`);
      expect(rollout.body).toMatchObject({ mode: 'shadow', version: 2, stableVersion: 1, status: 'RUNNING', startedBy: 'member-operator' });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('lets an ADMIN deploy the module as the active version', async () => {
    const { context, page } = await openPlayground(DESKTOP, 'ADMIN');
    try {
      expect(await page.getByLabel(/^Active/).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      const outcome = page.getByTestId('deploy-outcome');
      await until(() => outcome.locator('.outcome-title').textContent()).toBe(`Deployed ${STARTING_MODULE} version 1.`);
      expect(await outcome.textContent()).toContain('It is the active version');
      expect(await outcome.textContent()).toContain('All 2 test cases passed first.');
      const evaluated = await call<{ result: unknown }>(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule: STARTING_MODULE, policyFunction: 'fee', context: { amount: 150 } });
      expect(evaluated.body.result).toBe(300);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('is usable by keyboard: Tab leaves the editor, Shift+Tab comes back, and the page fits a phone', async () => {
    const { context, page } = await openPlayground(PHONE, 'MEMBER');
    try {
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'playground-phone.png') });
      await page.getByLabel('Locale', { exact: true }).focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.classList.contains('cm-content'))).toBe(true);
      const before = await editorText(page);
      await page.keyboard.press('Tab');
      // The editor keeps its text: Tab moved on instead of indenting.
      expect(await focusedId(page)).toBe('playground-tests');
      expect(await editorText(page)).toBe(before);
      await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate(() => document.activeElement?.classList.contains('cm-content'))).toBe(true);
      // Onwards to the evaluation, in the page's order.
      await page.getByRole('button', { name: 'Run tests' }).focus();
      await page.keyboard.press('Tab');
      expect(await focusedId(page)).toBe('playground-function');
      await page.keyboard.press('Tab');
      expect(await focusedId(page)).toBe('playground-context');
      expect(await unnamedControls(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
