import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildOpenApiDocument } from '../openapi/openapi-document.js';
import type { AppRouter } from '../app-types.js';

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

/**
 * GET /openapi.json (the OpenAPI 3.1 document, built once from the operations table and the zod
 * schemas) and GET /docs (an API reference page over it, served from this process).
 */
export function openapiRoutes(router: AppRouter): void {
  let document: string | undefined;
  router.get('/openapi.json', (ctx) => {
    document ??= JSON.stringify(buildOpenApiDocument());
    ctx.type = 'application/json';
    ctx.body = document;
  });

  const uiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map<string, Buffer>();
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/:file', (ctx) => {
    const name = (ctx as { params?: Record<string, string> }).params?.file ?? '';
    // Only the listed files: the parameter never reaches the file system otherwise.
    if (!Object.hasOwn(UI_FILES, name)) return;
    const type = UI_FILES[name]!;
    let body = files.get(name);
    if (body === undefined) {
      body = readFileSync(join(uiDirectory, name));
      files.set(name, body);
    }
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = body;
  });
}
