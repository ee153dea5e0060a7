// The operator console in headless Chromium against the built service with real data: a deployed
// policy evaluated so that rollups exist, and anomalies on it. An ADMIN signs in, filters and
// pages the list, opens a detail with the rollups charted, resolves with a note (audited with it),
// reopens and verifies; a VIEWER sees no action; the main controls are reachable by keyboard and
// named; the pages fit 1280×800 and a 390×844 phone. With CONSOLE_SCREENSHOTS=1 the screenshots go to
// docs/console/.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJwtKeyRing, createTokenSigner, type Role } from '../../src/auth/index.js';
import { openSqliteStore, type AnomalyType, type StoredAnomaly } from '../../src/store/index.js';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../src/api/routes/console.js';
import {
  assertServiceBuilt,
  createBearerCaller,
  describeWithChromium,
  MAIN,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
  runService,
  seedAnomalies,
  type BearerCall,
  type ServiceProcess,
} from '../support/index.js';

// The committed screenshots (docs/console/, shown in the README) are rewritten only when asked for:
// each run's ids and times differ, and a test run should not change the work tree.
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? join(MAIN, '..', '..', '..', 'docs', 'console') : join(tmpdir(), 'pe-console-screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Generous for a loaded 2-core machine; every wait is for a state, never a fixed time. */
const STEP_TIMEOUT_MS = 60_000;

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
/** The console's colour for the first version (console/rollup-chart.js, #1f4e99). */
const FIRST_SERIES_RGB = [0x1f, 0x4e, 0x99];
const NOTE = `rolled back after review ${randomUUID().slice(0, 8)}`;

describeWithChromium('the operator console (anomalies)', (executablePath) => {
  const jwtSecret = randomBytes(32).toString('base64url');
  const signer = createTokenSigner(createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test'));
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let base: string;
  let call: BearerCall;
  let tenant: { tenantId: string };
  let charted: StoredAnomaly;
  let browser: Browser;
  const pageProblems: string[] = [];

  const tokenFor = (role: Role) => signer.sign({ subject: `${role.toLowerCase()}-operator`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 3600 });

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-console-'));
    const seeding = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
    try {
      tenant = await registerTenant(seeding, 'console');
      const others = Array.from({ length: OTHER_ANOMALIES }, (_, i) => ({
        type: (['ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'] as const)[i % 2] as AnomalyType,
        policyModule: 'claims.intake',
        policyFunction: `route${i}`,
        version: 1,
      }));
      // Seeded first, so the charted anomaly is the newest: the first row of the list.
      await seedAnomalies(seeding, tenant.tenantId, others);
      const [newest] = await seedAnomalies(seeding, tenant.tenantId, [
        { type: 'HIGH_FAILURE_RATE', policyModule: MODULE, policyFunction: RULE, version: 1, summary: `${FAILING} of ${EVALUATIONS} evaluations of ${MODULE}.${RULE}@1 failed` },
      ]);
      charted = newest!;
    } finally {
      await seeding.close();
    }
    env = {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-console-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      JWT_KEYS: `k1:${jwtSecret}`,
      ENGINE_THREADS: '1',
      // Detection would only refresh the seeded anomaly; the list stays as seeded.
      ANOMALY_DETECT_INTERVAL_SECONDS: '86400',
    };
    service = runService([], env);
    base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    await service.waitForLog('service started');
    call = createBearerCaller(base, createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test'));

    const deployed = await call(tenant, 'MEMBER', 'POST', '/api/v1/policies', { source: SOURCE, locale: 'en-US' });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    const items = Array.from({ length: EVALUATIONS }, (_, i) => ({ policyModule: MODULE, policyFunction: RULE, context: { amount: i < FAILING ? 500 + i : i } }));
    const evaluated = await call<{ results: Array<{ error: string | null }> }>(tenant, 'MEMBER', 'POST', '/api/v1/policies/evaluate-source/batch', { items });
    expect(evaluated.status, JSON.stringify(evaluated.body)).toBe(200);
    expect(evaluated.body.results.filter((r) => r.error !== null)).toHaveLength(FAILING);

    browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (env) await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** A fresh browser session (its own sessionStorage) that records script errors and requests elsewhere. */
  async function openConsole(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport, reducedMotion: 'reduce', colorScheme: 'light', locale: 'en-US' });
    context.setDefaultTimeout(STEP_TIMEOUT_MS);
    const page = await context.newPage();
    page.on('pageerror', (error) => pageProblems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[134]/.test(message.text())) pageProblems.push(`console error: ${message.text()}`);
    });
    page.on('request', (request) => {
      if (!request.url().startsWith(`${base}/`) && !request.url().startsWith('data:')) pageProblems.push(`request elsewhere: ${request.url()}`);
    });
    await page.goto(`${base}/console`);
    return { context, page };
  }

  async function signIn(page: Page, role: Role): Promise<void> {
    await page.getByLabel('Bearer token').fill(await tokenFor(role));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('role').textContent(), { timeout: STEP_TIMEOUT_MS }).toBe(role);
  }

  const rows = (page: Page) => page.locator('table.anomaly-table tbody tr');

  /** No control without an accessible name: inputs by their label, buttons and links by their text. */
  async function unnamedControls(page: Page): Promise<string[]> {
    return page.evaluate(() =>
      Array.from(document.querySelectorAll('input, select, textarea, button, a[href]'))
        .filter((element) => {
          const labelled = (element as HTMLInputElement).labels?.length || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby');
          return !labelled && (element.textContent ?? '').trim() === '';
        })
        .map((element) => element.outerHTML.slice(0, 120)),
    );
  }

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

  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  it('serves the console from this process under a strict Content-Security-Policy', async () => {
    const page = await fetch(`${base}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/); // no inline script
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith('#'))) {
      expect(asset.startsWith('/console/'), asset).toBe(true);
      expect((await fetch(`${base}${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${base}/console/vendor/uPlot.esm.js`)).headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/console/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/console/vendor/uPlot.cjs.js`)).status).toBe(404);
  });

  it('lets an ADMIN list, filter, page, chart and triage anomalies at 1280×800, by keyboard too', async () => {
    const { context, page } = await openConsole(DESKTOP);
    try {
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
      expect(await unnamedControls(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') });

      // Sign in by keyboard: the token field, then Tab to the button and Enter.
      await page.getByLabel('Bearer token').fill(await tokenFor('ADMIN'));
      await page.getByLabel('Bearer token').focus();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('role').textContent()).toBe('ADMIN');
      expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 1, '']);

      // The list: newest first, severity and status at a glance, 10 per page when asked.
      await expect.poll(() => rows(page).count()).toBe(OTHER_ANOMALIES + 1);
      const first = rows(page).first();
      expect(await first.getByTestId('status').textContent()).toBe('OPEN');
      expect(await first.textContent()).toContain('HIGH');
      expect(await first.textContent()).toContain(`${MODULE}.${RULE}`);
      expect(await unnamedControls(page)).toEqual([]);
      await page.getByLabel('Per page').selectOption('10');
      await expect.poll(() => rows(page).count()).toBe(10);
      await expect.poll(() => page.getByRole('navigation', { name: 'Pages' }).textContent()).toContain('Page 1 of 2');
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => rows(page).count()).toBe(OTHER_ANOMALIES + 1 - 10);
      await page.getByLabel('Type').selectOption('HIGH_FAILURE_RATE');
      await expect.poll(() => rows(page).count()).toBe(1);
      await page.getByLabel('Type').selectOption('');
      await page.getByLabel('Per page').selectOption('20');
      await expect.poll(() => rows(page).count()).toBe(OTHER_ANOMALIES + 1);
      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, 'anomaly-list.png') });

      // Each page starts with its heading focused; the controls are one Tab away, the session's behind it.
      await page.reload();
      await expect.poll(() => rows(page).count()).toBe(OTHER_ANOMALIES + 1);
      await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
      expect(await focusStops(page, 'Shift+Tab', 2)).toEqual(['button:Sign out', 'a:Skip to content']);
      await page.getByRole('heading', { level: 1 }).focus();
      const stops = await focusStops(page, 'Tab', 5);
      expect(stops.slice(0, 4)).toEqual(['select:Type', 'select:Detected within', 'select:Per page', `a:${MODULE}.${RULE} @1`]);

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
      expect(await unnamedControls(page)).toEqual([]);
      expect(await fitsWidth(page)).toBe(true);
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
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
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect.poll(() => page.locator('.facts').getByTestId('status').textContent()).toMatch(/VERIFYING|RESOLVED|OPEN/);
      await expect.poll(() => page.locator('.triage-message').textContent(), { timeout: STEP_TIMEOUT_MS * 2 }).toMatch(/^Verification finished: (RESOLVED|OPEN)/);
      const verified = await call<{ status: string; lastVerification: unknown }>(tenant, 'ADMIN', 'GET', `/api/v1/audit/anomalies/${charted.id}`);
      expect(verified.body.lastVerification).not.toBeNull();
      expect(await page.locator('.facts').getByTestId('status').textContent()).toBe(verified.body.status);
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
      await signIn(page, 'ADMIN');
      await expect.poll(() => rows(page).count()).toBe(OTHER_ANOMALIES + 1);
      expect(await fitsWidth(page)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, 'anomaly-list-phone.png') });
      await rows(page).first().getByRole('link').click();
      await page.locator('figure.chart[data-metric="failureRate"] canvas').waitFor();
      await expect.poll(() => seriesDrawn(page, 'failureRate')).toBe(true);
      expect(await fitsWidth(page)).toBe(true);
      expect(pageProblems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 180_000);

  it('shows a VIEWER no action: the service refuses the anomalies, the console says why', async () => {
    const { context, page } = await openConsole(DESKTOP);
    try {
      await signIn(page, 'VIEWER');
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Your role (VIEWER) may not see this');
      expect(await page.getByRole('alert').first().textContent()).toMatch(/ERR_[A-Z_]+: /);
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
