import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../app-types.js';
import { pathValue } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';
import { POLICY_KEYWORDS_FILE, policyKeywordsModule } from './console-keywords.js';
import { IMPORT_MAP_HASH, IMPORT_MAP_SCRIPT, VENDOR_FILES } from './console-vendor.js';

export const CONSOLE_ROUTE = '/console';

/**
 * The console's pages load only this process's own scripts and styles (no CDN; the one inline
 * script is the import map, allowed by its hash), talk only to this origin, and cannot be framed.
 * uPlot styles its elements through the CSSOM (`element.style`), which `style-src 'self'` allows.
 * The editor (CodeMirror) writes its styles into a `<style>` element: the page allows the one that
 * carries the nonce of that response, which the page hands to the editor (console/style-nonce.js).
 */
function contentSecurityPolicy(styleNonce?: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${IMPORT_MAP_HASH}`,
    styleNonce === undefined ? "style-src 'self'" : `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The policy of every console file but the page itself. */
export const CONSOLE_CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** The page's policy: CONSOLE_CONTENT_SECURITY_POLICY plus the styles carrying this response's nonce. */
export const consolePageContentSecurityPolicy = (styleNonce: string): string => contentSecurityPolicy(styleNonce);

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page's template: answered only as /console, filled in, never as a file of its own. */
const PAGE_TEMPLATE = 'index.html';

/** Where the page's template takes the import map (console-vendor.ts) and the response's style nonce. */
const IMPORT_MAP_PLACE = '<!-- import map -->';
const STYLE_NONCE_PLACE = '<!-- style nonce -->';

/** `console/` beside package.json: the same walk works from `src/` (tests) and `dist/src/` (built). */
function consoleDirectory(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'console');
    if (dirname(dir) === dir) throw new Error('cannot find the package root (no package.json above the console route)');
  }
}

/** The console's own files by name: only plain names with a known type, read once; not the page's template. */
function listConsoleFiles(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(directory)) {
    if (name !== PAGE_TEMPLATE && /^[a-z0-9-]+\.[a-z]+$/.test(name) && Object.hasOwn(CONTENT_TYPES, extname(name))) files.set(name, join(directory, name));
  }
  return files;
}

function secure(ctx: AppContext): void {
  ctx.set('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
}

/** Where the console's files are found, each read once. */
interface ConsoleFiles {
  /** The path of the console's own file of that name, or undefined. */
  own(name: string): string | undefined;
  /** The installed file of a vendor path (`uplot/dist/uPlot.esm.js`). */
  vendor(path: string): string;
  /** Answers a file's content: `path` (or the name of a written file) tells its type. */
  send(ctx: AppContext, path: string, cacheControl: string, body?: Buffer): void;
  /** index.html with the import map and `styleNonce` in their places. */
  index(styleNonce: string): string;
  /** The files the service writes itself, by name. */
  generated(name: string): Buffer | undefined;
}

/**
 * GET /console: the operator console, plain ES modules and CSS from `console/`, the keyword
 * tables the service writes (console-keywords.ts) and the vendor files from node_modules
 * (console-vendor.ts), with a strict Content-Security-Policy. The console calls the public REST
 * API with the operator's bearer token, so it grants nothing the API does not.
 */
export const CONSOLE_ROUTES = declareRoutes<ConsoleFiles>([
  {
    method: 'get',
    path: CONSOLE_ROUTE,
    auth: 'none',
    handle: (ctx, files) => {
      const styleNonce = randomBytes(16).toString('base64');
      files.send(ctx, PAGE_TEMPLATE, 'no-cache', Buffer.from(files.index(styleNonce)));
      ctx.set('Content-Security-Policy', consolePageContentSecurityPolicy(styleNonce));
    },
  },
  {
    method: 'get',
    path: `${CONSOLE_ROUTE}/vendor/{file}`,
    auth: 'none',
    handle: (ctx, files) => {
      const name = pathValue(ctx, 'file');
      secure(ctx);
      // Only the listed files: the parameter never reaches the file system otherwise.
      const path = VENDOR_FILES.get(name);
      if (path === undefined) return;
      files.send(ctx, files.vendor(path), 'public, max-age=86400');
    },
  },
  {
    method: 'get',
    path: `${CONSOLE_ROUTE}/{file}`,
    auth: 'none',
    handle: (ctx, files) => {
      const name = pathValue(ctx, 'file');
      secure(ctx);
      const generated = files.generated(name);
      if (generated !== undefined) return files.send(ctx, name, 'no-cache', generated);
      const path = files.own(name);
      if (path === undefined) return;
      files.send(ctx, path, 'no-cache');
    },
  },
]);

export function createConsoleRoutes(): RouteGroup {
  const directory = consoleDirectory();
  // Files inside packages, found where Node would look for the packages: their `exports` name no such paths.
  const packageDirectories = createRequire(import.meta.url).resolve.paths('vendor') ?? [];
  let files: Map<string, string> | undefined;
  const cache = new Map<string, Buffer>();
  const read = (path: string): Buffer => {
    let body = cache.get(path);
    if (body === undefined) {
      body = readFileSync(path);
      cache.set(path, body);
    }
    return body;
  };
  let index: string | undefined;
  const generated = new Map([[POLICY_KEYWORDS_FILE, Buffer.from(policyKeywordsModule())]]);
  return bindRoutes(CONSOLE_ROUTES, {
    index: (styleNonce) =>
      (index ??= read(join(directory, PAGE_TEMPLATE)).toString('utf8').replace(IMPORT_MAP_PLACE, IMPORT_MAP_SCRIPT)).replace(
        STYLE_NONCE_PLACE,
        `<meta name="style-nonce" nonce="${styleNonce}">`,
      ),
    generated: (name) => generated.get(name),
    own: (name) => (files ??= listConsoleFiles(directory)).get(name),
    vendor: (path) => {
      const found = packageDirectories.map((directory) => join(directory, path)).find((candidate) => existsSync(candidate));
      if (found === undefined) throw new Error(`the console's vendor file ${path} is not installed`);
      return found;
    },
    send: (ctx, path, cacheControl, body) => {
      secure(ctx);
      ctx.type = CONTENT_TYPES[extname(path)]!;
      // The console's own files change with each release and carry no version in their names.
      ctx.set('Cache-Control', cacheControl);
      ctx.body = body ?? read(path);
    },
  });
}
