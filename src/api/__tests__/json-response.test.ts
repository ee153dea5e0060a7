// JSON answers are serialised inside the error handler, within their bound: one that would be
// larger is the error envelope (500 ERR_RESPONSE_TOO_LARGE), never Koa's plain-text 500 or a crash.
import { Readable } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../logging/index.js';
import { listen, type HttpListener } from '../../../test/support/index.js';
import type { AppState } from '../app-types.js';
import { errorHandler } from '../middleware/error-handler.js';
import { jsonResponse } from '../middleware/json-response.js';
import { requestContext } from '../middleware/request-context.js';

const BOUND = 1000;

describe('JSON answers within their bound', () => {
  let http: HttpListener;
  const logged: Array<Record<string, unknown>> = [];

  beforeEach(async () => {
    const router = new Router<AppState>();
    router.get('/small', (ctx) => {
      ctx.body = { items: ['é'.repeat(10)] };
    });
    router.get('/large', (ctx) => {
      ctx.body = { items: ['x'.repeat(BOUND)] };
    });
    // 2-byte characters: within the bound in characters, beyond it in bytes.
    router.get('/wide', (ctx) => {
      ctx.body = { items: ['é'.repeat(BOUND / 2)] };
    });
    router.get('/unserialisable', (ctx) => {
      ctx.body = { items: [{ toJSON: () => { throw new RangeError('Invalid string length'); } }] };
    });
    router.get('/refused', (ctx) => {
      ctx.status = 400;
      ctx.body = { result: null, error: 'no', executionTimeMs: 0, code: 'ERR_SOMETHING_REFUSED', diagnostics: [] };
    });
    router.get('/problem', (ctx) => {
      ctx.type = 'application/problem+json';
      ctx.body = { title: 'x' };
    });
    router.get('/text', (ctx) => {
      ctx.body = 'x'.repeat(2 * BOUND);
    });
    router.get('/stream', (ctx) => {
      ctx.type = 'text/plain';
      ctx.body = Readable.from(['a', 'b']);
    });
    const app = new Koa<AppState>();
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } });
    app.use(requestContext(logger));
    app.use(errorHandler(logger));
    app.use(jsonResponse(BOUND));
    app.use(router.routes());
    http = await listen(app);
  });

  afterEach(async () => {
    await http.close();
    logged.length = 0;
  });

  const get = async (path: string) => {
    const response = await fetch(`${http.baseUrl}${path}`);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  it('answers a JSON body as before: the same text, as application/json', async () => {
    expect(await get('/small')).toEqual({ status: 200, type: 'application/json; charset=utf-8', text: JSON.stringify({ items: ['é'.repeat(10)] }) });
  });

  it('answers a body over the bound, in characters or in UTF-8 bytes, or past what a string can hold, with the 500 envelope', async () => {
    const message = `the answer is larger than ${BOUND} bytes (RESPONSE_MAX_BYTES); ask for less, such as a smaller page`;
    for (const path of ['/large', '/wide', '/unserialisable']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(500);
      expect(answer.type, path).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.text), path).toEqual({ result: null, error: message, executionTimeMs: 0, code: 'ERR_RESPONSE_TOO_LARGE' });
    }
    expect(logged.filter((line) => line.msg === 'request completed').map((line) => [line.path, line.status, line.code])).toEqual([
      ['/large', 500, 'ERR_RESPONSE_TOO_LARGE'],
      ['/wide', 500, 'ERR_RESPONSE_TOO_LARGE'],
      ['/unserialisable', 500, 'ERR_RESPONSE_TOO_LARGE'],
    ]);
  });

  it('keeps the code of a refusal a route answered itself for the request log', async () => {
    expect((await get('/refused')).status).toBe(400);
    expect(logged.find((line) => line.msg === 'request completed')).toMatchObject({ status: 400, code: 'ERR_SOMETHING_REFUSED' });
  });

  it('keeps a JSON media type the route chose', async () => {
    expect(await get('/problem')).toEqual({ status: 200, type: 'application/problem+json', text: '{"title":"x"}' });
  });

  it('leaves text and streams to the route', async () => {
    expect(await get('/text')).toMatchObject({ status: 200, text: 'x'.repeat(2 * BOUND) });
    expect(await get('/stream')).toMatchObject({ status: 200, text: 'ab' });
  });
});
