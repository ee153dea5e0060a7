import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppContext } from '../app-types.js';
import { pathValue } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

export const CONSOLE_ROUTE = '/console';

/**
 * The console's pages load only this process's own scripts and styles (no inline script, no
 * CDN), talk only to this origin, and cannot be framed. uPlot styles its elements through the
 * CSSOM (`element.style`), which `style-src 'self'` allows.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The chart library, served from its npm package under /console/vendor/. */
const VENDOR_FILES: Readonly<Record<string, string>> = {
  'uPlot.esm.js': 'uplot/dist/uPlot.esm.js',
  'uPlot.min.css': 'uplot/dist/uPlot.min.css',
};

/** `console/` beside package.json: the same walk works from `src/` (tests) and `dist/src/` (built). */
function consoleDirectory(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'console');
    if (dirname(dir) === dir) throw new Error('cannot find the package root (no package.json above the console route)');
  }
}

/** The console's own files by name: only plain names with a known type, read once. */
function listConsoleFiles(directory: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(directory)) {
    if (/^[a-z0-9-]+\.[a-z]+$/.test(name) && Object.hasOwn(CONTENT_TYPES, extname(name))) files.set(name, join(directory, name));
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
  vendor(name: string): string;
  send(ctx: AppContext, path: string, cacheControl: string): void;
  index: string;
}

/**
 * GET /console: the operator console, plain ES modules and CSS from `console/` plus uPlot from
 * node_modules, with a strict Content-Security-Policy. The console calls the public REST API
 * with the operator's bearer token, so it grants nothing the API does not.
 */
export const CONSOLE_ROUTES = declareRoutes<ConsoleFiles>([
  {
    method: 'get',
    path: CONSOLE_ROUTE,
    auth: 'none',
    handle: (ctx, files) => files.send(ctx, files.index, 'no-cache'),
  },
  {
    method: 'get',
    path: `${CONSOLE_ROUTE}/vendor/{file}`,
    auth: 'none',
    handle: (ctx, files) => {
      const name = pathValue(ctx, 'file');
      secure(ctx);
      // Only the listed files: the parameter never reaches the file system otherwise.
      if (!Object.hasOwn(VENDOR_FILES, name)) return;
      files.send(ctx, files.vendor(VENDOR_FILES[name]!), 'public, max-age=86400');
    },
  },
  {
    method: 'get',
    path: `${CONSOLE_ROUTE}/{file}`,
    auth: 'none',
    handle: (ctx, files) => {
      const name = pathValue(ctx, 'file');
      secure(ctx);
      const path = files.own(name);
      if (path === undefined) return;
      files.send(ctx, path, 'no-cache');
    },
  },
]);

export function createConsoleRoutes(): RouteGroup {
  const directory = consoleDirectory();
  const vendorRequire = createRequire(import.meta.url);
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
  return bindRoutes(CONSOLE_ROUTES, {
    index: join(directory, 'index.html'),
    own: (name) => (files ??= listConsoleFiles(directory)).get(name),
    vendor: (name) => vendorRequire.resolve(name),
    send: (ctx, path, cacheControl) => {
      secure(ctx);
      ctx.type = CONTENT_TYPES[extname(path)]!;
      // The console's own files change with each release and carry no version in their names.
      ctx.set('Cache-Control', cacheControl);
      ctx.body = read(path);
    },
  });
}
