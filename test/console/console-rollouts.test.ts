// The console's rollouts in headless Chromium against the built service: two modules with two
// versions each, deployed over the API, one rolled out in the shadow (contexts captured) and one
// as a canary, with evaluations driven through the API. A MEMBER reads the shadow's counts and
// disagreements and sees no promote or abort; an ADMIN reads the canary's figures beside the stable
// version's, its charts, and promotes it through the button (checked through the API); an abort
// refused because the rollout ended meanwhile shows in the error style, on a phone; the deploy
// form deploys a file with passing tests, lists the failing cases of failing tests and the
// compiler's diagnostics, and lets a MEMBER start a shadow. With CONSOLE_SCREENSHOTS=1 the
// screenshots go to docs/console/.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Role } from '../../src/auth/index.js';
import { describeWithChromium, type BearerCall } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, fitsWidth, heading, launchConsoleBrowser, lowContrastText, openConsolePage, PHONE, SCREENSHOTS, startConsoleService, STEP_TIMEOUT_MS, unnamedControls, type ConsoleService, type Viewport } from './support/console-harness.js';

const SHADOWED = 'claims.shadowed';
const CANARIED = 'claims.canaried';
const DEPLOYED = 'claims.deployed';

const moduleSource = (name: string, body: string) => `Module ${name}.

Define Applicant has id as Text, amount as Int.

Rule price given applicant as Applicant, produce Int:
${body}`;
const STABLE_BODY = '  Return applicant.amount times 2.\n';
// The shadow: the same up to 10, another value above it, an error above 20.
const SHADOW_BODY = `  If applicant.amount is greater than 20:
    Fail with "too large".
  If applicant.amount is greater than 10:
    Return applicant.amount times 3.
  Return applicant.amount times 2.
`;
// The canary: fails above 10.
const CANARY_BODY = `  If applicant.amount is greater than 10:
    Fail with "too large".
  Return applicant.amount times 2.
`;
const SHADOW_EVALUATIONS = 25; // amounts 0-24: 11 agree, 10 disagree, 4 fail on the shadow only
const CANARY_EVALUATIONS = 40;

const DEPLOY_SOURCE = moduleSource(DEPLOYED, STABLE_BODY);
const passingTests = { cases: [
  { name: 'doubles a small amount', rule: 'price', context: { applicant: { id: 'a', amount: 3 } }, expect: 6 },
  { name: 'doubles a large amount', rule: 'price', context: { applicant: { id: 'b', amount: 50 } }, expect: 100 },
] };
const failingTests = { cases: [
  passingTests.cases[0]!,
  { name: 'triples a large amount', rule: 'price', context: { applicant: { id: 'b', amount: 50 } }, expect: 150 },
  { name: 'refuses a large amount', rule: 'price', context: { applicant: { id: 'c', amount: 60 } }, expectError: 'PL3001' },
] };

interface RolloutBody {
  status: string;
  shadow: { counts: Record<string, number>; disagreements: Array<{ contextHash: string; context?: unknown }> } | null;
  versions: Array<{ version: number; role: string; evaluations: number; failures: number; failureRate: number | null; meanTimeMs: number | null }>;
  reason: string | null;
  endedBy: string | null;
}

describeWithChromium('the operator console (rollouts)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let browser: Browser;
  const pageProblems: string[] = [];

  const rolloutOf = async (policyModule: string) => {
    const answer = await call<RolloutBody>(tenant, 'ADMIN', 'GET', `/api/v1/policies/${policyModule}/rollout`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  const deploy = async (role: Role, source: string, rollout?: Record<string, unknown>) => {
    const deployed = await call(tenant, role, 'POST', '/api/v1/policies', { source, ...(rollout ? { rollout } : {}) });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  };

  const evaluate = async (policyModule: string, id: string, amount: number) => {
    const answer = await call(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate', { policyModule, policyFunction: 'price', context: { applicant: { id, amount } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };

  /** expect.poll belongs to tests: the setup waits with this. */
  const until = async (done: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  beforeAll(async () => {
    service = await startConsoleService('console-rollouts');
    ({ base, call, tenant } = service);
    // In this service an active deploy and a canary need ADMIN; a MEMBER may start a shadow.
    await deploy('ADMIN', moduleSource(SHADOWED, STABLE_BODY));
    // Keeping other callers' contexts is an ADMIN's decision.
    await deploy('ADMIN', moduleSource(SHADOWED, SHADOW_BODY), { mode: 'shadow', captureContexts: true });
    await deploy('ADMIN', moduleSource(CANARIED, STABLE_BODY));
    await deploy('ADMIN', moduleSource(CANARIED, CANARY_BODY), { mode: 'canary', percent: 50, stickyKey: 'applicant.id' });
    for (let i = 0; i < SHADOW_EVALUATIONS; i += 1) await evaluate(SHADOWED, `s${i}`, i);
    for (let i = 0; i < CANARY_EVALUATIONS; i += 1) await evaluate(CANARIED, `u${i}`, i % 20);
    // The copies are compared, and the rollups written, off the answer path: wait until all are counted.
    await until(async () => (await rolloutOf(SHADOWED)).shadow?.counts.compared === SHADOW_EVALUATIONS, 'the shadow copies counted');
    await until(async () => (await rolloutOf(SHADOWED)).versions.every((one) => one.evaluations === SHADOW_EVALUATIONS), 'the shadow rollups written');
    await until(async () => (await rolloutOf(CANARIED)).versions.reduce((sum, one) => sum + one.evaluations, 0) === CANARY_EVALUATIONS, 'the canary rollups written');
    expect((await rolloutOf(SHADOWED)).shadow!.counts).toEqual({ compared: 25, agreed: 11, disagreed: 10, errors: 4, skipped: 0 });
    browser = await launchConsoleBrowser(executablePath);
  }, 180_000);

  afterAll(() => closeConsoleSuite(browser, service));

  const openConsole = (viewport: Viewport, role: Role) => openConsolePage(browser, service, { viewport, role, problems: pageProblems });
  const panel = (page: Page) => page.getByTestId('rollout-panel');
  const fact = (page: Page, name: string) => page.getByTestId(name).textContent();
  const versionRow = (page: Page, role: 'stable' | 'rollout') => page.locator(`table.rollout-versions tbody tr[data-role="${role}"] td`).allTextContents();
  const percentText = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(rate < 0.01 && rate > 0 ? 2 : 1)} %`);
  const msText = (ms: number | null) => (ms === null ? '—' : `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`);

  it('shows a MEMBER the shadow\'s counts, agreement and disagreements side by side, and no promote or abort', async () => {
    const { context, page } = await openConsole(DESKTOP, 'MEMBER');
    try {
      await page.goto(`${base}/console#/policies/${SHADOWED}`);
      await panel(page).waitFor();
      expect(await heading(page)).toBe(SHADOWED);
      expect(await panel(page).getByRole('heading', { level: 2 }).textContent()).toBe('Rollout of version 2 (shadow, running)');
      expect(await fact(page, 'rollout-status')).toBe('RUNNING');
      expect(await fact(page, 'rollout-mode')).toBe('Shadow');
      expect(await fact(page, 'rollout-percent')).toBe('100 % of evaluations');
      expect(await fact(page, 'rollout-contexts')).toBe('captured with disagreements');
      expect(await fact(page, 'rollout-started')).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC by admin-of-${tenant.tenantId}$`));
      expect(await page.getByTestId('rollout-sticky-key').count()).toBe(0);
      for (const [key, value] of [['compared', '25'], ['agreed', '11'], ['disagreed', '10'], ['errors', '4'], ['skipped', '0'], ['agreement', '44.0 %']]) {
        expect(await fact(page, `shadow-${key}`), key).toBe(value);
      }
      // Every disagreement and error (14, under the sample's 20), newest first: the last evaluation (24) fails on the shadow only.
      const rows = page.locator('table.disagreement-table tbody tr');
      expect(await rows.count()).toBe(14);
      expect(await rows.first().locator('td.side-stable').textContent()).toBe('48');
      expect(await rows.first().locator('td.side-shadow').textContent()).toMatch(/^PL\d{4} too large at \d+:\d+$/);
      const disagreement = rows.filter({ has: page.locator('td.side-stable', { hasText: /^30$/ }) });
      expect(await disagreement.locator('td.side-shadow').textContent()).toBe('45');
      const api = await rolloutOf(SHADOWED);
      const sample = api.shadow!.disagreements.find((one) => JSON.stringify(one.context) === JSON.stringify({ applicant: { id: 's15', amount: 15 } }))!;
      expect(await disagreement.locator('code.context-hash').textContent()).toBe(sample.contextHash);
      // The captured contexts are an ADMIN's to read: a MEMBER's page has the hash only.
      expect(await disagreement.locator('details').count()).toBe(0);
      // Both versions since the start: the shadow's copies count in its rollups.
      expect((await versionRow(page, 'stable')).slice(0, 4)).toEqual(['version 1', 'stable', '25', '0']);
      expect((await versionRow(page, 'rollout')).slice(0, 5)).toEqual(['version 2', 'rolled out (shadow)', '25', '4', '16.0 %']);
      // Only ADMIN ends a rollout.
      expect(await page.getByRole('button', { name: /promote|abort/i }).count()).toBe(0);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      await panel(page).screenshot({ path: join(SCREENSHOTS, 'policy-rollout-shadow.png') });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows an ADMIN the canary beside the stable version with charts, and promotes it through the button', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    try {
      await page.goto(`${base}/console#/policies/${CANARIED}`);
      await panel(page).waitFor();
      expect(await fact(page, 'rollout-mode')).toBe('Canary');
      expect(await fact(page, 'rollout-percent')).toBe('50 % of evaluations');
      expect(await fact(page, 'rollout-sticky-key')).toBe('applicant.id');
      expect(await page.getByTestId('shadow-compared').count()).toBe(0);
      const api = await rolloutOf(CANARIED);
      for (const one of api.versions) {
        const role = one.role as 'stable' | 'rollout';
        expect(await versionRow(page, role)).toEqual([
          `version ${one.version}`,
          role === 'stable' ? 'stable' : 'rolled out (canary)',
          String(one.evaluations),
          String(one.failures),
          percentText(one.failureRate),
          msText(one.meanTimeMs),
        ]);
      }
      // The stable version never fails; the canary fails above 10 (some of its share, at 50 % of 40).
      expect(api.versions.find((one) => one.role === 'stable')!.failures).toBe(0);
      // The charts: both versions, as the anomaly pages draw them.
      const charts = page.getByTestId('rollup-charts');
      await charts.waitFor();
      await expect.poll(() => charts.locator('figure.chart').count()).toBe(3);
      expect(await charts.locator('figure.chart[data-metric="failureRate"]').getAttribute('data-series')).toBe('2');
      await expect.poll(() => charts.locator('canvas').count()).toBeGreaterThanOrEqual(3);
      expect(await charts.locator('table.rollup-table tbody th').allTextContents()).toEqual([`${CANARIED}@1`, `${CANARIED}@2`]);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      await panel(page).screenshot({ path: join(SCREENSHOTS, 'policy-rollout-canary.png') });

      // Promote: confirmed in a dialog with Cancel focused; Escape changes nothing.
      await page.getByRole('button', { name: 'Promote version 2' }).click();
      const dialog = page.getByRole('dialog', { name: `Promote version 2 of ${CANARIED}?` });
      await dialog.waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      expect(await lowContrastText(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect((await rolloutOf(CANARIED)).status).toBe('RUNNING');
      await page.getByRole('button', { name: 'Promote version 2' }).click();
      await dialog.getByLabel('Reason').fill('canary looks healthy');
      await dialog.getByRole('button', { name: 'Promote version 2' }).click();
      await expect.poll(() => fact(page, 'rollout-status')).toBe('PROMOTED');
      expect(await panel(page).getByRole('status').textContent()).toBe('Promoted: version 2 is active.');
      expect(await fact(page, 'rollout-reason')).toBe('canary looks healthy');
      expect(await fact(page, 'rollout-ended')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC by admin-operator$/);
      expect(await panel(page).getByRole('heading', { level: 2 }).textContent()).toBe('Last rollout: version 2 (canary)');
      expect(await page.getByRole('button', { name: /promote|abort/i }).count()).toBe(0);
      // The versions table is read again: version 2 is the active one.
      await expect.poll(() => page.locator('table.version-table tbody tr[data-version="2"]').getByTestId('status').textContent()).toBe('ACTIVE');
      expect(await rolloutOf(CANARIED)).toMatchObject({ status: 'PROMOTED', reason: 'canary looks healthy', endedBy: 'admin-operator' });
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows a refused abort in the console\'s error style, and fits a 390×844 phone with the disagreements', async () => {
    const { context, page } = await openConsole(PHONE, 'ADMIN');
    try {
      await page.goto(`${base}/console#/policies/${SHADOWED}`);
      await panel(page).waitFor();
      await expect.poll(() => page.locator('table.disagreement-table tbody tr').count()).toBe(14);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      // Another operator ends the rollout meanwhile: this page's abort is refused, and says why.
      const aborted = await call(tenant, 'ADMIN', 'POST', `/api/v1/policies/${SHADOWED}/rollout/abort`, { reason: 'ended elsewhere' });
      expect(aborted.status).toBe(200);
      await page.getByRole('button', { name: 'Abort the rollout' }).click();
      const dialog = page.getByRole('dialog', { name: `Abort the rollout of ${SHADOWED}?` });
      await dialog.waitFor();
      expect(await dialog.evaluate((element) => element.getBoundingClientRect().right <= window.innerWidth)).toBe(true);
      await dialog.getByRole('button', { name: 'Abort the rollout' }).click();
      await dialog.waitFor({ state: 'detached' });
      const message = panel(page).getByRole('status');
      await expect.poll(() => message.textContent()).toMatch(/^The abort was refused: ERR_POLICY_ROLLOUT_NOT_RUNNING: /);
      expect(await message.getAttribute('class')).toContain('form-error');
      expect(await lowContrastText(page)).toEqual([]);
      // Read again, the page shows the rollout as the other operator ended it.
      await page.reload();
      await expect.poll(() => fact(page, 'rollout-status')).toBe('ABORTED');
      expect(await fact(page, 'rollout-reason')).toBe('ended elsewhere');
      expect(await page.getByRole('button', { name: /promote|abort/i }).count()).toBe(0);
      expect(pageProblems.splice(0)).toEqual([expect.stringMatching(/^console error: Failed to load resource: .*status of 409 /)]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('deploys from files: passing tests store the version, failing tests list their cases, a compile error its diagnostics', async () => {
    const { context, page } = await openConsole(DESKTOP, 'ADMIN');
    const file = (name: string, text: string) => ({ name, mimeType: name.endsWith('.json') ? 'application/json' : 'text/plain', buffer: Buffer.from(text) });
    const outcome = page.getByTestId('deploy-outcome');
    try {
      await page.goto(`${base}/console#/policies`);
      const form = page.getByRole('region', { name: 'Deploy a version' });
      await form.waitFor();
      expect(await page.getByLabel(/^Active/).isChecked()).toBe(true);
      expect(await page.getByLabel('Share in %').isVisible()).toBe(false);
      expect(await page.getByLabel('Sticky key').isVisible()).toBe(false);
      expect(await page.getByLabel(/Keep the context/).isVisible()).toBe(false);
      // Each mode shows its own fields.
      await page.getByLabel(/^Canary/).check();
      expect(await page.getByLabel('Sticky key').isVisible()).toBe(true);
      expect(await page.getByLabel(/Keep the context/).isVisible()).toBe(false);
      await page.getByLabel(/^Shadow/).check();
      expect(await page.getByLabel('Sticky key').isVisible()).toBe(false);
      expect(await page.getByLabel(/Keep the context/).isVisible()).toBe(true);
      await page.getByLabel(/^Active/).check();

      await page.getByLabel('Source file (.policy)').setInputFiles(file(`${DEPLOYED}.policy`, DEPLOY_SOURCE));
      await page.getByLabel('Tests file (.tests.json, optional)').setInputFiles(file(`${DEPLOYED}.tests.json`, JSON.stringify(passingTests)));
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await expect.poll(() => outcome.locator('.outcome-title').textContent()).toBe(`Deployed ${DEPLOYED} version 1.`);
      expect(await outcome.textContent()).toContain('All 2 test cases passed first.');
      expect(await outcome.textContent()).toContain('It is the active version');
      // The module list is read again and shows the new module.
      await expect.poll(() => page.locator('table.policy-table tbody tr').filter({ has: page.getByRole('link', { name: DEPLOYED, exact: true }) }).count()).toBe(1);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);

      // Failing tests: nothing stored, each failing case with what it expected and what it got.
      await page.getByLabel('Source file (.policy)').setInputFiles(file(`${DEPLOYED}.policy`, DEPLOY_SOURCE.replace('times 2', 'times 4')));
      await page.getByLabel('Tests file (.tests.json, optional)').setInputFiles(file(`${DEPLOYED}.tests.json`, JSON.stringify(failingTests)));
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await expect.poll(() => outcome.locator('.outcome-title').textContent()).toBe('3 test cases failed: nothing was stored.');
      const failures = outcome.locator('table.test-failures tbody tr');
      expect(await failures.locator('td:first-child').allTextContents()).toEqual(failingTests.cases.map((one) => one.name));
      expect(await failures.nth(0).locator('td').allTextContents()).toEqual(['doubles a small amount', 'price', '6', '12', 'expected 6, got 12']);
      expect(await failures.nth(1).locator('td.case-expected').textContent()).toBe('150');
      expect(await failures.nth(1).locator('td.case-actual').textContent()).toBe('200');
      expect(await failures.nth(2).locator('td.case-expected').textContent()).toBe('error PL3001');
      expect(await failures.nth(2).locator('td.case-actual').textContent()).toBe('240');
      expect(await lowContrastText(page)).toEqual([]);
      await page.getByRole('region', { name: 'Deploy a version' }).screenshot({ path: join(SCREENSHOTS, 'policy-deploy-failed-tests.png') });
      const versions = await call<{ totalElements: number }>(tenant, 'VIEWER', 'GET', `/api/v1/policies/${DEPLOYED}/versions`);
      expect(versions.body.totalElements).toBe(1);

      // A source that does not compile: the compiler's diagnostics with where they are.
      await page.getByLabel('Tests file (.tests.json, optional)').setInputFiles([]);
      await page.getByLabel('Source file (.policy)').setInputFiles(file('broken.policy', `Module ${DEPLOYED}.\n\nRule price produce Int:\n  Return nothing here.\n`));
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      await expect.poll(() => outcome.locator('.outcome-title').textContent()).toBe('The source does not compile: nothing was stored.');
      expect(await outcome.locator('table.diagnostics-table tbody tr').count()).toBeGreaterThan(0);
      expect(await outcome.locator('table.diagnostics-table tbody tr td').first().textContent()).toMatch(/^line \d+, column \d+$/);
      // The browser logs the two refusals this test asked for; nothing else.
      expect(pageProblems.splice(0)).toEqual([422, 400].map((status) => expect.stringMatching(new RegExp(`^console error: Failed to load resource: .*status of ${status} `))));
    } finally {
      await context.close();
    }
  }, 180_000);

  it('lets a MEMBER start only a shadow from the form; the module\'s page then shows it running', async () => {
    const { context, page } = await openConsole(PHONE, 'MEMBER');
    const file = (name: string, text: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
    try {
      await page.goto(`${base}/console#/policies`);
      await page.getByRole('region', { name: 'Deploy a version' }).waitFor();
      expect(await page.getByLabel(/^Active/).isDisabled()).toBe(true);
      expect(await page.getByLabel(/^Canary/).isDisabled()).toBe(true);
      expect(await page.getByLabel(/^Shadow/).isChecked()).toBe(true);
      await page.getByLabel('Source file (.policy)').setInputFiles(file(`${DEPLOYED}.policy`, DEPLOY_SOURCE.replace('times 2', 'times 5')));
      await page.getByLabel('Share in %').fill('40');
      // Keeping other callers' contexts is an ADMIN's decision.
      expect(await page.getByLabel(/Keep the context/).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Deploy', exact: true }).click();
      const outcome = page.getByTestId('deploy-outcome');
      await expect.poll(() => outcome.locator('.outcome-title').textContent()).toBe(`Deployed ${DEPLOYED} version 2.`);
      expect(await outcome.textContent()).toContain('Rolled out in the shadow: 40 % of version 1\'s evaluations are copied');
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await outcome.getByRole('link', { name: `Open ${DEPLOYED}` }).click();
      await panel(page).waitFor();
      expect(await fact(page, 'rollout-status')).toBe('RUNNING');
      expect(await fact(page, 'rollout-percent')).toBe('40 % of evaluations');
      expect(await fact(page, 'shadow-agreement')).toBe('— (nothing compared yet)');
      expect(await page.getByRole('button', { name: /promote|abort/i }).count()).toBe(0);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      expect(await rolloutOf(DEPLOYED)).toMatchObject({ status: 'RUNNING' });
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);
});
