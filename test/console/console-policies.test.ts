// The console's Policies pages in headless Chromium against the built service: two versions of a
// module deployed over the API, and one module each in de-DE and zh-CN. An ADMIN lists the modules,
// opens the versions with their statuses, reads a version's source with its locale's keywords
// highlighted, compares two versions line by line and rolls back after a confirmation (checked
// through the API and the audit chain); a VIEWER reads everything, shows a source in German, and
// sees no rollback; the pages
// fit a 390×844 phone. With CONSOLE_SCREENSHOTS=1 the screenshots go to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { IDENT_PART_CLASSES, IDENT_START_CLASSES } from '../../src/language/lexer/index.js';
import { GERMAN_ASCII_SPELLINGS, LOCALE_SYNTAXES } from '../../src/language/locales/index.js';
import { describeWithChromium, type BearerCall } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, fitsWidth, heading, launchConsoleBrowser, lowContrastText, openConsolePage, PHONE, SCREENSHOTS, startConsoleService, STEP_TIMEOUT_MS, unnamedControls, type ConsoleService, type Viewport } from './support/console-harness.js';

const MODULE = 'claims.pricing';
const SOURCE_V1 = `Module ${MODULE}.

# The fee of one claim.
Rule fee given amount as Int, produce Int:
  If amount is greater than 100:
    Return amount times 2.
  Return amount.
`;
const SOURCE_V2 = SOURCE_V1.replace('greater than 100', 'greater than 250').replace('times 2', 'times 3');
const EN_KEYWORDS = ['Module', 'Rule', 'given', 'as', 'Int', 'produce', 'Int', 'If', 'is greater than', 'Return', 'times', 'Return'];

const GERMAN_MODULE = 'claims.gebuehr';
const GERMAN_SOURCE = `Modul ${GERMAN_MODULE}.

# Gebühr je Vorgang.
Regel gebuehr gegeben betrag als Ganzzahl, liefert Ganzzahl:
  Wenn betrag ist größer als 100:
    Liefere betrag mal 2.
  Liefere betrag.
`;
const GERMAN_KEYWORDS = ['Modul', 'Regel', 'gegeben', 'als', 'Ganzzahl', 'liefert', 'Ganzzahl', 'Wenn', 'ist größer als', 'Liefere', 'mal', 'Liefere'];

const CHINESE_MODULE = 'claims.fee';
const CHINESE_SOURCE = `模块 ${CHINESE_MODULE}。

规则 fee 给定 amount 为 整数，产出 整数：
  如果 amount 大于 100：
    返回 amount 乘以 2。
  返回 amount。
`;
// 80 rules: with the built-in library's and the three modules above, more active policies than one
// page of the module list holds (100), so its last module continues on the second page.
const MANY_MODULE = 'zz.many';
const MANY_SOURCE = `Module ${MANY_MODULE}.\n${Array.from({ length: 80 }, (_, i) => `\nRule r${i} produce Int:\n  Return ${i}.\n`).join('')}`;

const CHINESE_KEYWORDS = ['模块', '规则', '给定', '为', '整数', '产出', '整数', '如果', '大于', '返回', '乘以', '返回'];

describeWithChromium('the operator console (policies)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    service = await startConsoleService('console-policies');
    ({ base, call, tenant } = service);

    for (const [source, locale] of [[SOURCE_V1, 'en-US'], [SOURCE_V2, 'en-US'], [GERMAN_SOURCE, 'de-DE'], [CHINESE_SOURCE, 'zh-CN'], [MANY_SOURCE, 'en-US']]) {
      const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source, locale });
      expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    }

    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(() => closeConsoleSuite(browser, service));

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });

  const focusedTag = (page: Page) => page.evaluate(() => `${document.activeElement?.tagName}:${document.activeElement?.textContent?.trim()}`);
  const moduleRow = (page: Page, name: string) => page.locator('table.policy-table tbody tr').filter({ has: page.getByRole('link', { name, exact: true }) });
  const versionRow = (page: Page, version: number) => page.locator(`table.version-table tbody tr[data-version="${version}"]`);
  const keywordsShown = (page: Page) => page.locator('pre.source .tok-keyword').allTextContents();
  const diffLines = (page: Page, kind: string) => page.locator(`table.diff tbody tr[data-kind="${kind}"] .diff-text`).allTextContents();

  async function activeVersion(): Promise<number | undefined> {
    const answer = await call<{ content: Array<{ version: number; status: string }> }>(tenant, 'VIEWER', 'GET', `/api/v1/policies/${MODULE}/versions`);
    expect(answer.status).toBe(200);
    return answer.body.content.find((one) => one.status === 'ACTIVE')?.version;
  }

  it('highlights with the lexer\'s own keywords, identifier classes and de-DE spellings: the service writes the console\'s tables from src/language', async () => {
    const served = await fetch(`${base}/console/policy-keywords.js`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const text = await served.text();
    const module = /^export const POLICY_KEYWORDS = (.*);$/m.exec(text);
    const tables = JSON.parse(module![1]!) as Record<string, { caseInsensitive: boolean; germanAsciiSpellings: boolean; spellings: string[] }>;
    expect(Object.keys(tables).sort()).toEqual(Object.keys(LOCALE_SYNTAXES).sort());
    for (const [tag, syntax] of Object.entries(LOCALE_SYNTAXES)) {
      const table = tables[tag]!;
      expect([...table.spellings].sort(), tag).toEqual([...new Set(Object.values(syntax.keywords).flat())].sort());
      expect([table.caseInsensitive, table.germanAsciiSpellings], tag).toEqual([syntax.caseInsensitive, syntax.germanAsciiSpellings]);
    }
    // The highlighter reads names and folds de-DE spellings as the lexer does.
    const constant = (name: string) => JSON.parse(new RegExp(`^export const ${name} = (.*);$`, 'm').exec(text)![1]!) as unknown;
    expect(constant('GERMAN_ASCII_SPELLINGS')).toEqual(GERMAN_ASCII_SPELLINGS);
    expect(constant('IDENTIFIER_CLASSES')).toEqual({ start: IDENT_START_CLASSES, part: IDENT_PART_CLASSES });
  });

  it('lets an ADMIN list modules, read versions and source, compare two versions and roll back after confirming', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    try {
      // The section link; the new page starts at its heading, and the modules follow it.
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Policies', exact: true }).click();
      await expect.poll(() => moduleRow(page, MODULE).count()).toBe(1);
      expect(await heading(page)).toBe('Policies');
      await expect.poll(() => focusedTag(page)).toBe('H1:Policies');
      expect(await page.getByRole('link', { name: 'Policies', exact: true }).getAttribute('aria-current')).toBe('page');
      expect(await moduleRow(page, MODULE).locator('td').allTextContents()).toEqual([MODULE, 'version 2', 'en-US', 'no']);
      expect(await moduleRow(page, GERMAN_MODULE).locator('td').allTextContents()).toEqual([GERMAN_MODULE, 'version 1', 'de-DE', 'no']);
      expect(await moduleRow(page, 'lending.loan').locator('td').allTextContents()).toEqual(['lending.loan', 'version 0', 'en-US', 'yes (version 0)']);
      // The built-in library first, then the tenant's modules by name.
      const names = await page.locator('table.policy-table tbody tr td:first-child').allTextContents();
      expect(names.indexOf('lending.loan')).toBeLessThan(names.indexOf(CHINESE_MODULE));
      expect(names.slice(names.indexOf(CHINESE_MODULE))).toEqual([CHINESE_MODULE, GERMAN_MODULE, MODULE, MANY_MODULE]);
      expect(await page.getByRole('navigation', { name: 'Pages' }).locator('p').textContent()).toBe('Page 1 of 2');
      expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);

      // The second page: the rest of the last module's rules, and nothing after it.
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).locator('p').textContent()).toBe('Page 2 of 2');
      expect(await page.locator('table.policy-table tbody tr td:first-child').allTextContents()).toEqual([MANY_MODULE]);
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await expect.poll(() => moduleRow(page, MODULE).count()).toBe(1);

      // Into the module by keyboard: the versions, oldest first, with status, locale, actor and rule count.
      await page.getByRole('link', { name: MODULE, exact: true }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => heading(page)).toBe(MODULE);
      await expect.poll(() => focusedTag(page)).toBe(`H1:${MODULE}`);
      await expect.poll(() => page.locator('table.version-table tbody tr').count()).toBe(2);
      for (const [version, status] of [[1, 'SUPERSEDED'], [2, 'ACTIVE']] as const) {
        const cells = await versionRow(page, version).locator('td').allTextContents();
        expect(cells.slice(0, 3)).toEqual([`version ${version}`, status, 'en-US']);
        expect(cells[3]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
        expect(cells[4]).toBe(`admin-of-${tenant.tenantId}`);
        // How many rules the version has (its one rule `fee`): a listed version carries no signatures.
        expect(cells[5]).toBe('1');
      }
      expect(await versionRow(page, 1).getByRole('button', { name: 'Roll back to version 1' }).count()).toBe(1);
      expect(await versionRow(page, 2).getByRole('button').count()).toBe(0);
      expect(await unnamedControls(page)).toEqual([]);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'policies.png') });

      // A version's source, numbered and highlighted with the keywords of en-US.
      await versionRow(page, 2).getByRole('link', { name: 'version 2' }).click();
      await expect.poll(() => heading(page)).toBe(`${MODULE} version 2`);
      await page.locator('pre.source').waitFor();
      expect(await page.locator('pre.source').textContent()).toBe(SOURCE_V2);
      expect(await keywordsShown(page)).toEqual(EN_KEYWORDS);
      expect(await page.locator('pre.source .tok-comment').allTextContents()).toEqual(['# The fee of one claim.']);
      expect(await page.locator('pre.source .tok-number').allTextContents()).toEqual(['250', '3']);
      expect(await page.locator('pre.source').getAttribute('aria-label')).toBe(`Source of ${MODULE} version 2 (en-US)`);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'policy-source.png'), fullPage: true });

      // The other locales' modules, highlighted with their own keywords.
      for (const [name, keywords] of [[GERMAN_MODULE, GERMAN_KEYWORDS], [CHINESE_MODULE, CHINESE_KEYWORDS]] as const) {
        await page.goto(`${base}/console#/policies/${name}/1`);
        await expect.poll(() => heading(page)).toBe(`${name} version 1`);
        await page.locator('pre.source').waitFor();
        expect(await keywordsShown(page)).toEqual(keywords);
        expect(await lowContrastText(page)).toEqual([]);
      }

      // The two versions compared: the changed lines removed and added, the rest unchanged.
      await page.goto(`${base}/console#/policies/${MODULE}`);
      await expect.poll(() => page.locator('table.version-table tbody tr').count()).toBe(2);
      expect(await page.getByLabel('Compare version').inputValue()).toBe('1');
      expect(await page.getByLabel('with version').inputValue()).toBe('2');
      await page.getByRole('button', { name: 'Show the differences' }).click();
      await expect.poll(() => heading(page)).toBe(`${MODULE}: version 1 to version 2`);
      await page.locator('table.diff').waitFor();
      expect(await diffLines(page, 'removed')).toEqual(['  If amount is greater than 100:', '    Return amount times 2.']);
      expect(await diffLines(page, 'added')).toEqual(['  If amount is greater than 250:', '    Return amount times 3.']);
      expect(await page.locator('table.diff tbody tr[data-kind="same"]').count()).toBe(SOURCE_V1.trimEnd().split('\n').length - 2);
      expect(await page.getByTestId('diff-summary').textContent()).toBe('2 lines added, 2 removed.');
      expect(await page.locator('table.diff tbody tr[data-kind="added"] .diff-mark').first().textContent()).toBe('+added');
      expect(await unnamedControls(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'policy-diff.png'), fullPage: true });

      // Rollback: the confirmation opens with Cancel focused; Escape changes nothing.
      await page.getByRole('link', { name: `Versions of ${MODULE}` }).click();
      await versionRow(page, 1).getByRole('button', { name: 'Roll back to version 1' }).click();
      const dialog = page.getByRole('dialog', { name: `Roll back ${MODULE}?` });
      await dialog.waitFor();
      await expect.poll(() => focusedTag(page)).toBe('BUTTON:Cancel');
      expect(await lowContrastText(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await activeVersion()).toBe(2);

      // Confirmed: the outcome is shown and focused, the table and the API say version 1 is active.
      await versionRow(page, 1).getByRole('button', { name: 'Roll back to version 1' }).click();
      await dialog.getByRole('button', { name: 'Roll back to version 1' }).click();
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Rolled back' }).textContent()).toBe('Rolled back: version 1 is active (was version 2).');
      await expect.poll(() => versionRow(page, 1).getByTestId('status').textContent()).toBe('ACTIVE');
      expect(await versionRow(page, 2).getByTestId('status').textContent()).toBe('SUPERSEDED');
      await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('action-message');
      expect(await versionRow(page, 2).getByRole('button', { name: 'Roll back to version 2' }).count()).toBe(1);
      expect(await activeVersion()).toBe(1);
      expect(await lowContrastText(page)).toEqual([]);
      await expect
        .poll(async () => {
          const audit = await call<Array<{ actorId: string; payload: Record<string, unknown> }>>(tenant, 'ADMIN', 'GET', '/api/v1/audit/type/POLICY_ROLLED_BACK');
          return audit.body.map((record) => [record.actorId, record.payload.policyModule, record.payload.version, record.payload.previousVersion]);
        }, { timeout: STEP_TIMEOUT_MS })
        .toEqual([['admin-operator', MODULE, 1, 2]]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('fits a 390×844 phone: modules, versions, source, diff and the confirmation', async () => {
    const { context, page } = await openConsole(PHONE, 'ADMIN');
    try {
      await page.goto(`${base}/console#/policies`);
      await expect.poll(() => moduleRow(page, MODULE).count()).toBe(1);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.goto(`${base}/console#/policies/${MODULE}`);
      await expect.poll(() => page.locator('table.version-table tbody tr').count()).toBe(2);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.getByRole('button', { name: /^Roll back to version/ }).click();
      await page.getByRole('dialog').waitFor();
      expect(await lowContrastText(page)).toEqual([]);
      expect(await page.getByRole('dialog').evaluate((element) => element.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await page.goto(`${base}/console#/policies/${MODULE}/2`);
      await page.locator('pre.source').waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.goto(`${base}/console#/policies/${MODULE}/diff?from=1&to=2`);
      await page.locator('table.diff').waitFor();
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows a VIEWER the modules, versions, source (also printed in German) and diff, and no rollback', async () => {
    const { context, page } = await openConsole(DESKTOP, 'VIEWER');
    try {
      await page.goto(`${base}/console#/policies/${MODULE}`);
      await expect.poll(() => page.locator('table.version-table tbody tr').count()).toBe(2);
      expect(await page.getByRole('button', { name: /roll back/i }).count()).toBe(0);
      expect(await page.getByRole('columnheader', { name: 'Action' }).count()).toBe(0);
      expect(await lowContrastText(page)).toEqual([]);
      await versionRow(page, 1).getByRole('link', { name: 'version 1' }).click();
      await page.locator('pre.source').waitFor();
      expect(await keywordsShown(page)).toEqual(EN_KEYWORDS);
      expect(await page.getByRole('button', { name: /roll back/i }).count()).toBe(0);
      // The same version printed by the service in German, highlighted with the German keywords.
      await page.getByLabel('Show in').selectOption('de-DE');
      await page.locator('pre.source[lang="de-DE"]').waitFor();
      expect(await keywordsShown(page)).toEqual(GERMAN_KEYWORDS);
      expect(await page.locator('pre.source').getAttribute('aria-label')).toBe(`Source of ${MODULE} version 1 (de-DE)`);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
