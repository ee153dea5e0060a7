// What the console's browser suites share: the built service on a fresh SQLite store with one
// tenant, tokens for that tenant, headless Chromium, and pages that record what should never
// happen (script errors, requests to anywhere but the service).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createJwtKeyRing, createTokenSigner, type Role } from '../../../src/auth/index.js';
import { openSqliteStore, type Store } from '../../../src/store/index.js';
import {
  assertServiceBuilt,
  createBearerCaller,
  MAIN,
  REDIS_URL,
  registerTenant,
  removeRedisPrefix,
  runService,
  type BearerCall,
  type ServiceProcess,
} from '../../support/index.js';

// The committed screenshots (docs/console/, shown in the README) are rewritten only when asked for:
// each run's ids and times differ, and a test run should not change the work tree.
export const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? join(MAIN, '..', '..', '..', 'docs', 'console') : join(tmpdir(), 'pe-console-screenshots');
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** Generous for a loaded 2-core machine; every wait is for a state, never a fixed time. */
export const STEP_TIMEOUT_MS = 60_000;

export type Viewport = typeof DESKTOP;

export interface ConsoleService {
  /** `http://127.0.0.1:<port>`, the API and the console. */
  base: string;
  call: BearerCall;
  tenant: { tenantId: string };
  /** A bearer token for `<role>-operator` of the tenant, with only that role. */
  tokenFor(role: Role): Promise<string>;
  env: Record<string, string>;
  /** Stops the service and removes its Redis keys and data directory. */
  close(): Promise<void>;
}

export interface ConsoleServiceOptions {
  /** Writes into the store after the tenant is registered and before the service opens it. */
  seed?: (store: Store, tenant: { tenantId: string }) => Promise<void>;
}

/**
 * The built service (API and worker in one process) on its own data directory and Redis prefix, with
 * one tenant registered as `<name>-<hex>`. `name` also tells the suite's data directory and keys apart.
 */
export async function startConsoleService(name: string, options: ConsoleServiceOptions = {}): Promise<ConsoleService> {
  assertServiceBuilt();
  const jwtSecret = randomBytes(32).toString('base64url');
  const keyRing = () => createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test');
  const signer = createTokenSigner(keyRing());
  const dataDir = await mkdtemp(join(tmpdir(), `pe-${name}-`));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_KEY_PREFIX: `test-${name}-${randomUUID()}`,
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_KEYS: `k1:${jwtSecret}`,
    ENGINE_THREADS: '1',
    // Detection would only refresh seeded anomalies; what a suite set up stays as it is.
    ANOMALY_DETECT_INTERVAL_SECONDS: '86400',
  };
  let service: ServiceProcess | undefined;
  const close = async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const seeding = await openSqliteStore(join(dataDir, 'policy-engine.sqlite'));
    let tenant: { tenantId: string };
    try {
      tenant = await registerTenant(seeding, name);
      await options.seed?.(seeding, tenant);
    } finally {
      await seeding.close();
    }
    service = runService([], env);
    const base = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    await service.waitForLog('service started');
    return {
      base,
      call: createBearerCaller(base, keyRing()),
      tenant,
      tokenFor: (role) => signer.sign({ subject: `${role.toLowerCase()}-operator`, tenantId: tenant.tenantId, roles: [role], ttlSeconds: 3600 }),
      env,
      close,
    };
  } catch (error) {
    // The suite never gets a handle to close: clean up here.
    await close();
    throw error;
  }
}

/** Headless Chromium, with the screenshots' directory ready. */
export async function launchConsoleBrowser(executablePath: string): Promise<Browser> {
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return browser;
}

/** A suite's teardown; either may be missing when its setup failed part way. */
export async function closeConsoleSuite(browser: Browser | undefined, service: ConsoleService | undefined): Promise<void> {
  await browser?.close();
  await service?.close();
}

export interface OpenConsoleOptions {
  viewport: Viewport;
  /** Where the page's script errors and requests elsewhere go; the suites expect it empty. */
  problems: string[];
  /** Signs in with this role's token; without it the page stays at the sign-in form. */
  role?: Role;
}

/** A fresh browser session (its own sessionStorage) at `/console`. */
export async function openConsolePage(browser: Browser, service: ConsoleService, { viewport, problems, role }: OpenConsoleOptions): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, reducedMotion: 'reduce', colorScheme: 'light', locale: 'en-US' });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The browser logs every refused request; 401, 403 and 404 are answers the suites ask for.
    if (message.type() === 'error' && !/status of 40[134]/.test(message.text())) problems.push(`console error: ${message.text()}`);
  });
  page.on('request', (request) => {
    if (!request.url().startsWith(`${service.base}/`) && !request.url().startsWith('data:')) problems.push(`request elsewhere: ${request.url()}`);
  });
  await page.goto(`${service.base}/console`);
  if (role) await signIn(page, service, role);
  return { context, page };
}

/** Fills the sign-in form with a token for `role` and waits until the session bar shows the role. */
export async function signIn(page: Page, service: Pick<ConsoleService, 'tokenFor'>, role: Role): Promise<void> {
  await page.getByLabel('Bearer token').fill(await service.tokenFor(role));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.getByTestId('role').textContent(), { timeout: STEP_TIMEOUT_MS }).toBe(role);
}

/** The page's title: each console page has exactly one h1. */
export const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

/** Whether nothing is wider than the viewport: no sideways scrolling, on a phone too. */
export const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** No control without an accessible name: inputs by their label, buttons and links by their text. */
export async function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('input, select, textarea, button, a[href]'))
      .filter((element) => {
        const labelled = (element as HTMLInputElement).labels?.length || element.getAttribute('aria-label') || element.getAttribute('aria-labelledby');
        return !labelled && (element.textContent ?? '').trim() === '';
      })
      .map((element) => element.outerHTML.slice(0, 120)),
  );
}
