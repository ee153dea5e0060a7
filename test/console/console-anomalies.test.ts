// The operator console in headless Chromium against the built service with real data: a deployed
// policy evaluated so that rollups exist, and anomalies on it. An ADMIN signs in, filters and
// pages the list, opens a detail with the rollups charted, resolves with a note (audited with it),
// reopens and verifies; a VIEWER sees no action; the main controls are reachable by keyboard and
// named; the pages fit 1280×800 and a 390×844 phone. With CONSOLE_SCREENSHOTS=1 the screenshots go to
// docs/console/.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AnomalyType, StoredAnomaly } from '../../src/anomalies/index.js';
import { CONSOLE_CONTENT_SECURITY_POLICY, consolePageContentSecurityPolicy } from '../../src/api/routes/console.js';
import { describeWithChromium, seedAnomalies, type BearerCall } from '../support/index.js';
import { closeConsoleSuite, DESKTOP, fitsWidth, launchConsoleBrowser, lowContrastText, openConsolePage, PHONE, SCREENSHOTS, signIn, startConsoleService, STEP_TIMEOUT_MS, unnamedControls, type ConsoleService, type Viewport } from './support/console-harness.js';

const MODULE = 'claims.triage';
const RULE = 'assess';
const SOURCE = `Module ${MODULE}.

Rule ${RULE} given amount as Int, produce Int:
  If amount is greater than 100:
    Fail with "amount above the automatic limit".
  Return amount times 2.
`;
const EVALUATIONS = 60;
const FAILING = 20;
/** Besides the charted one, enough anomalies for a second page of 10. */
const OTHER_ANOMALIES = 11;
/** A module with two versions, its newest failing: the recommended actions can roll back and start a canary. */
const ACTED_MODULE = 'claims.limits';
const actedSource = (limit: number) => `Module ${ACTED_MODULE}.

Rule cap given amount as Int, produce Int:
  If amount is greater than ${limit}:
    Fail with "amount above the limit".
  Return amount.
`;
/** Every seeded anomaly: the charted one, the acted-on one, and the others. */
const ALL_ANOMALIES = OTHER_ANOMALIES + 2;
/** The console's colour for the first version (console/rollup-chart.js, #1f4e99). */
const FIRST_SERIES_RGB = [0x1f, 0x4e, 0x99];
const NOTE = `rolled back after review ${randomUUID().slice(0, 8)}`;

describeWithChromium('the operator console (anomalies)', (executablePath) => {
  let service: ConsoleService;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let charted: StoredAnomaly;
  let acted: StoredAnomaly;
  let browser: Browser;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    service = await startConsoleService('console', {
      seed: async (store, seeded) => {
        const others = Array.from({ length: OTHER_ANOMALIES }, (_, i) => ({
          type: (['ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'] as const)[i % 2] as AnomalyType,
          policyModule: 'claims.intake',
          policyFunction: `route${i}`,
          version: 1,
        }));
        // Seeded first, so the charted anomaly is the newest: the first row of the list.
        [acted] = (await seedAnomalies(store, seeded.tenantId, [{ type: 'HIGH_FAILURE_RATE', policyModule: ACTED_MODULE, policyFunction: 'cap', version: 2 }])) as [StoredAnomaly];
        await seedAnomalies(store, seeded.tenantId, others);
        const [newest] = await seedAnomalies(store, seeded.tenantId, [
          { type: 'HIGH_FAILURE_RATE', policyModule: MODULE, policyFunction: RULE, version: 1, summary: `${FAILING} of ${EVALUATIONS} evaluations of ${MODULE}.${RULE}@1 failed` },
        ]);
        charted = newest!;
      },
    });
    ({ base, call, tenant } = service);

    const deployed = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: SOURCE, locale: 'en-US' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    for (const limit of [100, 50]) {
      const actedDeploy = await call(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source: actedSource(limit), locale: 'en-US' });
      expect(actedDeploy.status, JSON.stringify(actedDeploy.body)).toBe(201);
    }
    const items = Array.from({ length: EVALUATIONS }, (_, i) => ({ policyModule: MODULE, policyFunction: RULE, context: { amount: i < FAILING ? 500 + i : i } }));
    const evaluated = await call<{ results: Array<{ error: string | null }> }>(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate-source/batch', { items });
    expect(evaluated.status, JSON.stringify(evaluated.body)).toBe(200);
    expect(evaluated.body.results.filter((r) => r.error !== null)).toHaveLength(FAILING);

    browser = await launchConsoleBrowser(executablePath);
  }, 120_000);

  afterAll(() => closeConsoleSuite(browser, service));

  /** At the sign-in form: each test signs in itself, the first by keyboard. */
  const openConsole = (viewport: Viewport) => openConsolePage(browser, service, { viewport, problems: pageProblems });

  const rows = (page: Page) => page.locator('table.anomaly-table tbody tr');

  /** The names of what `key` (Tab or Shift+Tab) reaches from the focused element, in order. */
  async function focusStops(page: Page, key: 'Tab' | 'Shift+Tab', count: number): Promise<string[]> {
    const stops: string[] = [];
    for (let i = 0; i < count; i++) {
      await page.keyboard.press(key);
      stops.push(
        await page.evaluate(() => {
          const element = document.activeElement as HTMLElement | null;
          if (!element || element === document.body) return '';
          const label = (element as HTMLInputElement).labels?.[0]?.textContent ?? element.getAttribute('aria-label') ?? element.textContent ?? '';
          return `${element.tagName.toLowerCase()}:${label.trim()}`;
        }),
      );
    }
    return stops;
  }

  /** Whether the chart's canvas has pixels of the first version's colour: its series is drawn, not only the axes. */
  async function seriesDrawn(page: Page, metric: string): Promise<boolean> {
    return page.locator(`figure.chart[data-metric="${metric}"] canvas`).evaluate((canvas: HTMLCanvasElement, [r, g, b]) => {
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < pixels.length; i += 4) {
        if (Math.abs(pixels[i]! - r!) < 8 && Math.abs(pixels[i + 1]! - g!) < 8 && Math.abs(pixels[i + 2]! - b!) < 8 && pixels[i + 3]! > 200) return true;
      }
      return false;
    }, FIRST_SERIES_RGB);
  }


  it('serves the console from this process under a strict Content-Security-Policy', async () => {
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // The page's policy is the files' plus the nonce of its one style element's (the editor's).
    const styleNonce = /<meta name="style-nonce" nonce="([^"]+)">/.exec(html)![1]!;
    expect(page.headers.get('content-security-policy')).toBe(consolePageContentSecurityPolicy(styleNonce));
    expect(consolePageContentSecurityPolicy(styleNonce)).toBe(CONSOLE_CONTENT_SECURITY_POLICY.replace("style-src 'self'", `style-src 'self' 'nonce-${styleNonce}'`));
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    // The only inline script is the import map (allowed by its hash; console-playground.test.ts).
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toEqual(['<script type="importmap">']);
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith('#'))) {
      expect(asset.startsWith('/console/'), asset).toBe(true);
      expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${base}/console/vendor/uPlot.esm.js`)).headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/console/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/console/vendor/uPlot.cjs.js`)).status).toBe(404);
    // The page's template is no file of its own: without its import map and nonce it would not work.
    expect((await fetch(`${base}/console/index.html`)).status).toBe(404);
  });

  it('lets an ADMIN list, filter, page, chart and triage anomalies at 1280×800, by keyboard too', async () => {
    const { context, page } = await openConsole(DESKTOP);
    try {
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      expect(await unnamedControls(page)).toEqual([]);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') });

      // Sign in by keyboard: the token field, then Tab to the button and Enter.
      await page.getByLabel('Bearer token').fill(await service.tokenFor('ADMIN'));
      await page.getByLabel('Bearer token').focus();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('role').textContent()).toBe('ADMIN');
      expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 1, '']);

      // The list: newest first, severity and status at a glance, 10 per page when asked.
      await expect.poll(() => rows(page).count()).toBe(ALL_ANOMALIES);
      const first = rows(page).first();
      expect(await first.getByTestId('status').textContent()).toBe('OPEN');
      expect(await first.textContent()).toContain('HIGH');
      expect(await first.textContent()).toContain(`${MODULE}.${RULE}`);
      expect(await unnamedControls(page)).toEqual([]);
      await page.getByLabel('Per page').selectOption('10');
      await expect.poll(() => rows(page).count()).toBe(10);
      await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent()).toContain('Page 1 of 2');
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => rows(page).count()).toBe(ALL_ANOMALIES - 10);
      await page.getByLabel('Type').selectOption('HIGH_FAILURE_RATE');
      await expect.poll(() => rows(page).count()).toBe(2);
      await page.getByLabel('Type').selectOption('');
      // Status and severity narrow the page the API answered, and say so.
      await page.getByLabel('Status', { exact: true }).selectOption('RESOLVED');
      await expect.poll(() => page.getByTestId('narrowed-note').textContent()).toBe('Status and severity are matched on each page of the list: 0 of the 10 anomalies on this page match.');
      expect(await rows(page).count()).toBe(0);
      await page.getByLabel('Status', { exact: true }).selectOption('OPEN');
      await page.getByLabel('Severity', { exact: true }).selectOption('HIGH');
      await expect.poll(() => page.getByTestId('narrowed-note').textContent()).toContain('10 of the 10 anomalies');
      expect(await rows(page).count()).toBe(10);
      expect(page.url()).toContain('status=OPEN&severity=HIGH');
      await page.getByLabel('Severity', { exact: true }).selectOption('CRITICAL');
      await expect.poll(() => page.getByTestId('narrowed-note').textContent()).toContain('0 of the 10');
      await page.getByLabel('Status', { exact: true }).selectOption('');
      await page.getByLabel('Severity', { exact: true }).selectOption('');
      await page.getByLabel('Per page').selectOption('20');
      await expect.poll(() => rows(page).count()).toBe(ALL_ANOMALIES);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'anomaly-list.png') });

      // Each page starts with its heading focused; the controls are one Tab away, the session's and
      // the sections' links behind it, then the skip link.
      await page.reload();
      await expect.poll(() => rows(page).count()).toBe(ALL_ANOMALIES);
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
      const behind = await focusStops(page, 'Shift+Tab', 8);
      expect(behind[0]).toBe('button:Sign out');
      expect(behind).toContain('a:Skip to content');
      expect(behind.slice(1, behind.indexOf('a:Skip to content'))).toContain('a:Anomalies');
      await page.getByRole('heading', { level: 1 }).focus();
      const stops = await focusStops(page, 'Tab', 7);
      expect(stops.slice(0, 6)).toEqual(['select:Type', 'select:Status', 'select:Severity', 'select:Detected within', 'select:Per page', `a:${MODULE}.${RULE} @1`]);

      // The detail, opened from the keyboard: metrics, and the rollups charted per version.
      await page.keyboard.press('Shift+Tab');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`${MODULE}.${RULE} @1`);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`High failure rate: ${MODULE}.${RULE} @1`);
      await page.locator('figure.chart[data-metric="failureRate"] canvas').waitFor();
      for (const metric of ['failureRate', 'meanMs', 'count']) {
        expect(await page.locator(`figure.chart[data-metric="${metric}"]`).getAttribute('data-series')).toBe('1');
        await expect.poll(() => seriesDrawn(page, metric), { timeout: STEP_TIMEOUT_MS }).toBe(true);
      }
      const versionRow = page.locator('.rollup-table tbody tr', { hasText: `${MODULE}@1` });
      expect(await versionRow.locator('td').allTextContents()).toEqual([String(EVALUATIONS), `${((FAILING / EVALUATIONS) * 100).toFixed(1)} %`, expect.stringMatching(/ ms$/), '0', '—', '—']);
      expect(await page.locator('.u-legend').first().textContent()).toContain('v1');
      // One time format everywhere: the axis, the legend, the facts; metrics by their labels with units.
      const timeFormat = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/;
      expect(await page.locator('.facts dd').nth(3).textContent()).toMatch(timeFormat);
      await page.locator('figure.chart[data-metric="failureRate"] .u-over').hover();
      await expect.poll(() => page.locator('figure.chart[data-metric="failureRate"] .u-legend .u-series').first().locator('.u-value').textContent()).toMatch(timeFormat);
      await page.mouse.move(0, 0);
      expect(await page.locator('main').textContent()).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
      expect(await page.locator('#metrics-title + .facts').textContent()).toContain('Failure rate in the window30.0 %');
      expect(await page.locator('#metrics-title + .facts').textContent()).toContain('Evaluations in the window100');
      expect(await page.locator('.facts').first().textContent()).toContain('Never verified.');
      // The recommended actions: version 1 has no earlier version, so no rollback; the failed evaluations one link away.
      await expect.poll(() => page.locator('.action-steps').textContent()).toContain(`deploy ${MODULE} again: version 1 has no earlier version`);
      expect(await page.getByRole('link', { name: 'Failed evaluations of version 1' }).getAttribute('href')).toBe(`#/audit?type=POLICY_EVALUATED&module=${MODULE}&function=${RULE}&version=1&outcome=failed`);
      expect(await page.getByRole('button', { name: /Roll back|canary/ }).count()).toBe(0);
      expect(await unnamedControls(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'anomaly-detail.png'), fullPage: true });

      // Resolve with a note: the status shows RESOLVED and the audit has the change with the note.
      await page.getByLabel('Note').fill(NOTE);
      await page.getByRole('button', { name: 'Resolve' }).click();
      await expect.poll(() => page.locator('.facts').getByTestId('status').textContent()).toBe('RESOLVED');
      await expect
        .poll(async () => {
          const audit = await call<Array<{ payload: Record<string, unknown> }>>(tenant, 'ADMIN', 'GET', '/api/v1/audit/type/ANOMALY_STATUS_CHANGED');
          return audit.body.filter((record) => record.payload.anomalyId === charted.id).map((record) => [record.payload.from, record.payload.to, record.payload.note]);
        }, { timeout: STEP_TIMEOUT_MS })
        .toEqual([['OPEN', 'RESOLVED', NOTE]]);

      // Reopen, then verify: VERIFYING until the worker's job ends it (OPEN or RESOLVED).
      await page.getByRole('button', { name: 'Reopen' }).click();
      await expect.poll(() => page.locator('.facts').getByTestId('status').textContent()).toBe('OPEN');
      await page.getByRole('button', { name: 'Verify now' }).click();
      await page.getByRole('dialog', { name: 'Verify this anomaly now?' }).getByRole('button', { name: 'Start the verification' }).click();
      await expect.poll(() => page.locator('.facts').getByTestId('status').textContent()).toMatch(/VERIFYING|RESOLVED|OPEN/);
      await expect.poll(() => page.locator('.triage-message').textContent(), { timeout: STEP_TIMEOUT_MS * 2 }).toMatch(/^Verification finished\. (Still happening|Cleared|No evaluations)/);
      const verified = await call<{ status: string; lastVerification: unknown }>(tenant, 'ADMIN', 'GET', `/api/v1/audit/anomalies/${charted.id}`);
      expect(verified.body.lastVerification).not.toBeNull();
      expect(await page.locator('.facts').getByTestId('status').textContent()).toBe(verified.body.status);
      expect(await page.locator('.facts').first().textContent()).toMatch(/Last verification\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: (Still happening|Cleared|No evaluations)/);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('fits a 390×844 phone: the list as cards, the detail with its charts', async () => {
    const { context, page } = await openConsole(PHONE);
    try {
      // A new browser session holds no token: sign in again.
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      await signIn(page, service, 'ADMIN');
      await expect.poll(() => rows(page).count()).toBe(ALL_ANOMALIES);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'anomaly-list-phone.png') });
      await rows(page).first().getByRole('link').click();
      await page.locator('figure.chart[data-metric="failureRate"] canvas').waitFor();
      await expect.poll(() => seriesDrawn(page, 'failureRate')).toBe(true);
      expect(await fitsWidth(page)).toBe(true);
      expect(await lowContrastText(page)).toEqual([]);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('acts on the recommended actions: a canary of the previous version, a rollback, the audit records of the version', async () => {
    const { context, page } = await openConsole(DESKTOP);
    try {
      await signIn(page, service, 'ADMIN');
      await page.goto(`${base}/console#/anomalies/${acted.id}`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(`High failure rate: ${ACTED_MODULE}.cap @2`);
      const rollBack = page.getByRole('button', { name: 'Roll back to version 1' });
      await rollBack.waitFor();
      expect(await unnamedControls(page)).toEqual([]);
      await page.locator('.recommended-actions').screenshot({ path: join(SCREENSHOTS, 'anomaly-actions.png') });

      // A canary of version 1's source, after the confirmation names what changes; Cancel changes nothing.
      await page.getByRole('button', { name: 'Start a canary of version 1' }).click();
      const dialog = page.getByRole('dialog', { name: 'Start a canary of version 1?' });
      expect(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === document.activeElement)).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      expect((await call(tenant, 'ADMIN', 'GET', `/api/v1/policies/${ACTED_MODULE}/rollout`)).status).toBe(404);
      await page.getByRole('button', { name: 'Start a canary of version 1' }).click();
      await dialog.getByLabel('Share in % (1 to 100)').fill('25');
      expect(await lowContrastText(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Start the canary' }).click();
      await expect.poll(() => page.locator('.action-message').textContent()).toContain('Version 3 (the source of version 1) runs as a canary.');
      const rollout = await call<{ mode: string; version: number; percent: number; stableVersion: number }>(tenant, 'ADMIN', 'GET', `/api/v1/policies/${ACTED_MODULE}/rollout`);
      expect(rollout.body).toMatchObject({ mode: 'canary', version: 3, percent: 25, stableVersion: 2 });
      const sources = await Promise.all([1, 3].map((v) => call<{ source: string }>(tenant, 'ADMIN', 'GET', `/api/v1/policies/${ACTED_MODULE}/versions/${v}/source`)));
      expect(sources[1]!.body.source).toBe(sources[0]!.body.source);
      expect((await call(tenant, 'ADMIN', 'POST', `/api/v1/policies/${ACTED_MODULE}/rollout/abort`, {})).status).toBe(200);

      // The rollback, confirmed: version 1 answers; the steps are read again (version 2 no longer active).
      await rollBack.click();
      await page.getByRole('dialog', { name: `Roll back ${ACTED_MODULE}?` }).getByRole('button', { name: 'Roll back to version 1' }).click();
      await expect.poll(() => page.locator('.action-message').textContent()).toContain(`Version 1 of ${ACTED_MODULE} is now the active version.`);
      const active = await call<{ content: Array<{ version: number }> }>(tenant, 'ADMIN', 'GET', `/api/v1/policies?policyModule=${ACTED_MODULE}&status=ACTIVE`);
      expect(active.body.content[0]?.version).toBe(1);
      await expect.poll(() => page.locator('.action-steps').textContent()).toContain('Version 2 is not the active one (version 1 is)');
      expect(await page.getByRole('button', { name: /Roll back|canary/ }).count()).toBe(0);
      expect(await lowContrastText(page)).toEqual([]);

      // The audit records of the version, filtered by the link: the form shows the filters.
      await page.getByRole('link', { name: 'Failed evaluations of version 2' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit chain');
      expect(await page.getByLabel('Version').inputValue()).toBe('2');
      expect(await page.getByLabel('Outcome').inputValue()).toBe('failed');
      expect(await page.getByLabel('Policy function').inputValue()).toBe('cap');
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows a VIEWER no action: the service refuses the anomalies, the console says why', async () => {
    const { context, page } = await openConsole(DESKTOP);
    try {
      await signIn(page, service, 'VIEWER');
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (VIEWER) may not see this');
      expect(await page.getByRole('alert').first().textContent()).toMatch(/ERR_[A-Z_]+: /);
      expect(await lowContrastText(page)).toEqual([]);
      await page.goto(`${base}/console#/anomalies/${charted.id}`);
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (VIEWER) may not see this');
      expect(await page.getByRole('button', { name: /verify|resolve|dismiss|reopen/i }).count()).toBe(0);
      expect(await page.getByLabel('Note').count()).toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
