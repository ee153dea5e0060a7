// Every request gets an id, a logger carrying it (made only when something logs), one completion
// line at info, and its observers told how long it took.
import Router from '@koa/router';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../logging/index.js';
import { listen, type HttpListener } from '../../../test/support/index.js';
import type { AppContext, AppState } from '../app-types.js';
import { requestContext } from '../middleware/request-context.js';

interface Observed {
  path: string;
  status: number;
  seconds: number;
}

async function start(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const observed: Observed[] = [];
  const router = new Router<AppState>();
  router.get('/logs', (ctx) => {
    ctx.state.log.warn({ step: 'inside' }, 'handler line');
    ctx.body = { ok: true };
  });
  router.get('/quiet', (ctx) => {
    ctx.status = 204;
  });
  const app = new Koa<AppState>();
  const logger = createLogger({ level, destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  app.use(requestContext(logger, [(ctx: AppContext, seconds: number) => observed.push({ path: ctx.path, status: ctx.status, seconds })]));
  app.use(router.routes());
  return { http: await listen(app), lines, observed };
}

describe('requestContext', () => {
  let http: HttpListener | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it("carries the caller's request id on the handler's lines and the completion line, and tells the observers", async () => {
    const started = await start('info');
    http = started.http;
    const response = await fetch(`${http.baseUrl}/logs`, { headers: { 'x-request-id': 'req-1' } });
    expect(response.headers.get('x-request-id')).toBe('req-1');
    const quiet = await fetch(`${http.baseUrl}/quiet`);
    const generated = quiet.headers.get('x-request-id');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);

    expect(started.lines.find((line) => line.msg === 'handler line')).toMatchObject({ reqId: 'req-1', step: 'inside', level: 40 });
    const completed = started.lines.filter((line) => line.msg === 'request completed');
    expect(completed).toMatchObject([
      { reqId: 'req-1', method: 'GET', path: '/logs', status: 200 },
      { reqId: generated, method: 'GET', path: '/quiet', status: 204 },
    ]);
    expect(started.observed.map(({ path, status }) => [path, status])).toEqual([
      ['/logs', 200],
      ['/quiet', 204],
    ]);
    for (const { seconds } of started.observed) expect(seconds).toBeGreaterThanOrEqual(0);
  });

  it('writes no completion line above info, and still tells the observers', async () => {
    const started = await start('warn');
    http = started.http;
    await fetch(`${http.baseUrl}/logs`, { headers: { 'x-request-id': 'req-2' } });
    expect(started.lines.map((line) => [line.msg, line.reqId])).toEqual([['handler line', 'req-2']]);
    expect(started.observed).toHaveLength(1);
  });
});
