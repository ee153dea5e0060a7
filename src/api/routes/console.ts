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
 * uPlot styles its elements through the CSSOM (`element.style`), which `style-src 'self'` allows;
 * the editor's styles go through constructed style sheets (adoptedStyleSheets), which it allows too.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'self' ${IMPORT_MAP_HASH}`,
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

/** Where index.html takes the import map (console-vendor.ts). */
const IMPORT_MAP_PLACE = '<!-- import map -->';

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
  /** The installed file of a vendor path (`uplot/dist/uPlot.esm.js`). */
  vendor(path: string): string;
  /** Answers a file's content: `path` (or the name of a written file) tells its type. */
  send(ctx: AppContext, path: string, cacheControl: string, body?: Buffer): void;
  /** index.html with the import map in its place. */
  index(): Buffer;
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
    handle: (ctx, files) => files.send(ctx, 'index.html', 'no-cache', files.index()),
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
  let index: Buffer | undefined;
  const generated = new Map([[POLICY_KEYWORDS_FILE, Buffer.from(policyKeywordsModule())]]);
  return bindRoutes(CONSOLE_ROUTES, {
    index: () => (index ??= Buffer.from(read(join(directory, 'index.html')).toString('utf8').replace(IMPORT_MAP_PLACE, IMPORT_MAP_SCRIPT))),
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
