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

// The committed screenshots (docs/console/, shown in docs/console.md) are rewritten only when asked for:
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
  /** A bearer token for `<role>-operator` of the tenant (or of `tenantId`), with only that role. */
  tokenFor(role: Role, tenantId?: string): Promise<string>;
  env: Record<string, string>;
  /** Stops the service and removes its Redis keys and data directory. */
  close(): Promise<void>;
}

export interface ConsoleServiceOptions {
  /** Writes into the store after the tenant is registered and before the service opens it. */
  seed?: (store: Store, tenant: { tenantId: string }) => Promise<void>;
  /** Settings added to the service's environment. */
  env?: Record<string, string>;
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
    ...options.env,
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
      tokenFor: (role, tenantId = tenant.tenantId) => signer.sign({ subject: `${role.toLowerCase()}-operator`, tenantId, roles: [role], ttlSeconds: 3600 }),
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

export interface ContrastFinding {
  selector: string;
  text: string;
  /** Contrast ratio, two decimals. */
  ratio: number;
  /** 4.5 for body text, 3 for large text (WCAG 2.1 AA, 1.4.3). */
  required: number;
  color: string;
  background: string;
}

/**
 * Visible text whose colour is below WCAG 2.1 AA against the background behind it: 4.5:1, or 3:1 for
 * large text (at least 24px, or 18.66px bold). Covers element text, form values and placeholders,
 * and CSS-generated text (::before/::after). The background is the nearest opaque ancestor's, with
 * translucent layers on the way blended over it; text drawn over an image or a canvas is left out,
 * since no single colour stands behind it. With a modal dialog open, only the dialog is checked: the
 * rest is inert behind its backdrop.
 */
export async function lowContrastText(page: Page): Promise<ContrastFinding[]> {
  return page.evaluate(() => {
    type Rgba = [number, number, number, number];
    const unparsed: string[] = [];
    const parse = (value: string): Rgba => {
      const match = /^rgba?\(([^)]+)\)$/.exec(value.trim());
      if (value === 'transparent') return [0, 0, 0, 0];
      if (!match) {
        // A colour syntax this helper does not read must not pass unnoticed.
        unparsed.push(value);
        return [0, 0, 0, 1];
      }
      const parts = match[1]!.split(/[\s,/]+/).filter(Boolean).map((part) => (part.endsWith('%') ? Number.parseFloat(part) / 100 : Number(part)));
      return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => {
      const a = top[3];
      return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
    };
    const luminance = ([r, g, b]: Rgba) => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const contrast = (a: Rgba, b: Rgba) => {
      const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
      return (light + 0.05) / (dark + 0.05);
    };
    const css = (color: Rgba) => `rgb(${color.slice(0, 3).map((c) => Math.round(c)).join(', ')})`;

    /** The colour behind `element`'s content, or undefined when an image or a canvas is part of it. */
    const backgroundOf = (element: Element, own?: CSSStyleDeclaration): Rgba | undefined => {
      const layers: Rgba[] = [];
      const styles = own ? [own] : [];
      for (let node: Element | null = element; node; node = node.parentElement) styles.push(getComputedStyle(node));
      for (const style of styles) {
        if (style.backgroundImage !== 'none') return undefined;
        const color = parse(style.backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] >= 1) break;
      }
      // Below the root the browser paints white (the console asks for the light scheme).
      return layers.reduceRight<Rgba>((behind, layer) => over(layer, behind), [255, 255, 255, 1]);
    };

    /** Clipped to nothing, 1px wide (the visually-hidden pattern), or placed off the page (the skip link). */
    const visuallyHidden = (element: Element) => {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) return true;
      if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0) return true;
      for (let node: Element | null = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.clip === 'rect(0px, 0px, 0px, 0px)' || style.clipPath === 'inset(50%)') return true;
        const nodeBox = node.getBoundingClientRect();
        if (style.overflow !== 'visible' && (nodeBox.width <= 1 || nodeBox.height <= 1)) return true;
      }
      return false;
    };

    /** Whether a canvas or an image is painted under the middle of `element`, in front of its background ancestors. */
    const overGraphics = (element: Element) => {
      const box = element.getBoundingClientRect();
      const x = box.left + box.width / 2;
      const y = box.top + box.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return false;
      for (const hit of document.elementsFromPoint(x, y)) {
        if (hit === element || element.contains(hit)) continue;
        if (hit.contains(element)) return false;
        if (hit instanceof HTMLCanvasElement || hit instanceof HTMLImageElement || hit instanceof SVGElement || hit instanceof HTMLVideoElement) return true;
      }
      return false;
    };

    const selectorOf = (element: Element) => {
      const path: string[] = [];
      for (let node: Element | null = element; node && node !== document.body && path.length < 4; node = node.parentElement) {
        if (node.id) {
          path.unshift(`#${node.id}`);
          break;
        }
        const classes = Array.from(node.classList, (name) => `.${name}`).join('');
        const sameTag = node.parentElement ? Array.from(node.parentElement.children).filter((child) => child.tagName === node!.tagName) : [];
        const position = sameTag.length > 1 ? `:nth-of-type(${sameTag.indexOf(node) + 1})` : '';
        path.unshift(`${node.tagName.toLowerCase()}${classes}${position}`);
      }
      return path.join(' > ');
    };

    const findings: Array<{ selector: string; text: string; ratio: number; required: number; color: string; background: string }> = [];
    const check = (element: Element, style: CSSStyleDeclaration, text: string, background: Rgba | undefined, what = '') => {
      if (!background || text.trim() === '') return;
      let opacity = 1;
      for (let node: Element | null = element; node; node = node.parentElement) opacity *= Number(getComputedStyle(node).opacity);
      const ink = parse(style.color);
      const shown = over([ink[0], ink[1], ink[2], ink[3] * opacity], background);
      const size = Number.parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      const required = large ? 3 : 4.5;
      const ratio = contrast(shown, background);
      if (ratio < required) {
        findings.push({ selector: selectorOf(element) + what, text: text.trim().slice(0, 40), ratio: Math.floor(ratio * 100) / 100, required, color: css(shown), background: css(background) });
      }
    };

    const scope = document.querySelector('dialog:modal') ?? document.body;
    for (const element of [scope, ...Array.from(scope.querySelectorAll('*'))]) {
      if (element instanceof HTMLCanvasElement || element instanceof HTMLScriptElement || element instanceof HTMLStyleElement || element instanceof HTMLOptionElement) continue;
      if (!element.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) || visuallyHidden(element)) continue;
      const style = getComputedStyle(element);
      const ownText = Array.from(element.childNodes)
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('');
      const needsBackground = ownText.trim() !== '' || element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement;
      const pseudos = (['::before', '::after'] as const).map((pseudo) => [pseudo, getComputedStyle(element, pseudo)] as const).filter(([, pseudoStyle]) => pseudoStyle.display !== 'none' && !['none', 'normal', '""'].includes(pseudoStyle.content));
      if (!needsBackground && pseudos.length === 0) continue;
      const background = overGraphics(element) ? undefined : backgroundOf(element);
      if (!background) continue;
      check(element, style, ownText, background);
      if (element instanceof HTMLSelectElement) check(element, style, element.selectedOptions[0]?.text ?? '', background);
      if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) {
        if (element.value) check(element, style, element.value, background);
        else if (element.placeholder) check(element, getComputedStyle(element, '::placeholder'), element.placeholder, background, '::placeholder');
      }
      for (const [pseudo, pseudoStyle] of pseudos) {
        // The generated text as shown: attr() and counter() resolve only in the layout, so a mark stands in.
        check(element, pseudoStyle, pseudoStyle.content.replace(/^"|"$/g, '') || '*', backgroundOf(element, pseudoStyle), pseudo);
      }
    }
    for (const value of new Set(unparsed)) findings.push({ selector: '(colour)', text: `unread colour ${value}`, ratio: 0, required: 4.5, color: value, background: '' });
    return findings;
  });
}
