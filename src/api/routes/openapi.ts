import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import { pathValue } from '../route-context.js';
import { bindRoutes, declareRoutes, type RouteGroup } from '../route-declaration.js';

/** The files of the API reference page, from the swagger-ui-dist package: nothing from a CDN. */
const UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Policy engine service — API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="api-reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// A file of its own rather than an inline script, so a strict Content-Security-Policy can allow it.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api-reference', deepLinking: true, tryItOutEnabled: false });\n`;

/** What the pages serve: the document, and the reference page's files read once. */
interface OpenApiPages {
  document(): string;
  uiFile(name: string): Buffer;
}

/**
 * GET /openapi.json (the OpenAPI 3.1 document of the app's routes and their zod schemas) and
 * GET /docs (an API reference page over it, served from this process).
 */
export const OPENAPI_ROUTES = declareRoutes<OpenApiPages>([
  {
    method: 'get',
    path: '/openapi.json',
    auth: 'none',
    doc: { tag: 'operations', summary: 'This document', success: { status: 200, description: 'OpenAPI 3.1' }, errors: {} },
    handle: (ctx, pages) => {
      ctx.type = 'application/json';
      ctx.body = pages.document();
    },
  },
  {
    method: 'get',
    path: '/docs',
    auth: 'none',
    handle: (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    },
  },
  {
    method: 'get',
    path: '/docs/init.js',
    auth: 'none',
    handle: (ctx) => {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.body = INIT;
    },
  },
  {
    method: 'get',
    path: '/docs/{file}',
    auth: 'none',
    handle: (ctx, pages) => {
      const name = pathValue(ctx, 'file');
      // Only the listed files: the parameter never reaches the file system otherwise.
      if (!Object.hasOwn(UI_FILES, name)) return;
      const type = UI_FILES[name]!;
      const body = pages.uiFile(name);
      ctx.type = type;
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = body;
    },
  },
]);

/** The document of `documented()`, the app's route groups (this one among them), built on first request. */
export function createOpenApiRoutes(documented: () => readonly RouteGroup[]): RouteGroup {
  let document: string | undefined;
  const uiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  return bindRoutes(OPENAPI_ROUTES, {
    document: () => (document ??= JSON.stringify(buildOpenApiDocument(documented().flatMap((group) => group.routes)))),
    uiFile: (name) => {
      let body = files.get(name);
      if (body === undefined) {
        body = readFileSync(join(uiDirectory, name));
        files.set(name, body);
      }
      return body;
    },
  });
}
