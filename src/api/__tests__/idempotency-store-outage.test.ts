// A store that goes away while a keyed request runs must not hold the key for the whole lease once
// it is back: the key's release (the request failed) or its stored answer (the request succeeded but
// the answer could not be stored) is written as soon as the store answers again. A request that
// failed after storing its effect keeps its key: a retry replays that effect's answer, never runs again.
import Router from '@koa/router';
import Koa from 'koa';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyRepository } from '../../idempotency/index.js';
import { createLogger } from '../../logging/index.js';
import { listen, type HttpListener } from '../../../test/support/index.js';
import { openSqliteStore, type SqliteStore } from '../../store/index.js';
import type { AppState } from '../app-types.js';
import { errorHandler } from '../middleware/error-handler.js';
import { idempotent } from '../middleware/idempotency.js';
import { jsonBody } from '../middleware/json-body.js';

const TENANT = 'acme';
/** Far longer than the test waits: only an early release or answer can free the key in time. */
const LEASE_MS = 10 * 60_000;

/** What the store says while it is away (better-sqlite3's locked-database error). */
const unreachable = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('an Idempotency-Key when the store goes away mid-request', () => {
  let dir: string;
  let store: SqliteStore;
  let http: HttpListener;
  /** Which repository writes fail: the store is away for them. */
  const away = { release: false, complete: false, handler: false, afterEffect: false };
  let effects = 0;
  /** Attempts to write each key's answer. */
  let completions: Map<string, number>;
  /** The warnings logged about a key (the error handler logs its own for each 503). */
  let warnings: Array<Record<string, unknown>>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pe-idem-outage-'));
    store = await openSqliteStore(join(dir, 'db.sqlite'));
    const real = store.idempotency;
    const repository: IdempotencyRepository = {
      get: (...args) => real.get(...args),
      putIfAbsent: (...args) => real.putIfAbsent(...args),
      release: (...args) => (away.release ? Promise.reject(unreachable()) : real.release(...args)),
      complete: (...args) => {
        completions.set(args[1], (completions.get(args[1]) ?? 0) + 1);
        return away.complete ? Promise.reject(unreachable()) : real.complete(...args);
      },
    };
    completions = new Map();
    warnings = [];
    const log = {
      warn: (fields: Record<string, unknown>) => {
        if ('idempotencyKey' in fields) warnings.push(fields);
      },
    } as unknown as AppState['log'];
    const router = new Router<AppState>();
    router.patch(
      '/thing',
      async (ctx, next) => {
        ctx.state.tenantId = TENANT;
        ctx.state.log = log;
        await next();
      },
      idempotent({ repository, leaseMs: LEASE_MS, maxAnswersRetrying: 1 }),
      (ctx) => {
        if (away.handler) throw unreachable();
        effects += 1;
        ctx.state.storedEffectAnswer = { status: 200, body: { effects } };
        if (away.afterEffect) throw unreachable();
        ctx.body = { effects };
      },
    );
    const app = new Koa<AppState>();
    const logger = createLogger({ level: 'silent' });
    app.use(errorHandler(logger));
    app.use(jsonBody({ limitBytes: 1024 }));
    app.use(router.routes());
    http = await listen(app);
    effects = 0;
    Object.assign(away, { release: false, complete: false, handler: false, afterEffect: false });
  });

  afterEach(async () => {
    await http.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const patch = async (key: string) => {
    const response = await fetch(`${http.baseUrl}/thing`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: '{"x":1}' });
    return { status: response.status, body: (await response.json()) as { code?: string; effects?: number } };
  };

  it('a request that failed because the store was away frees its key once the store is back', async () => {
    Object.assign(away, { handler: true, release: true });
    const failed = await patch('k-release');
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('ERR_SERVICE_UNAVAILABLE');
    expect((await patch('k-release')).body.code).toBe('ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS');

    Object.assign(away, { handler: false, release: false });
    await expect.poll(async () => (await patch('k-release')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect(effects).toBe(1);
  });

  it('a request that succeeded but whose answer could not be stored is replayed once the store is back, not run again', async () => {
    away.complete = true;
    const first = await patch('k-complete');
    expect(first.status).toBe(503);
    expect(effects).toBe(1);

    away.complete = false;
    await expect.poll(async () => (await patch('k-complete')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect((await patch('k-complete')).body).toEqual({ effects: 1 });
    expect(effects).toBe(1);
  });

  it('a request that failed after storing its effect keeps its key: the retry waits, then replays the effect', async () => {
    Object.assign(away, { afterEffect: true, complete: true });
    const failed = await patch('k-effect');
    expect(failed.status).toBe(503);
    expect(effects).toBe(1);
    Object.assign(away, { afterEffect: false });
    expect((await patch('k-effect')).body.code).toBe('ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(effects).toBe(1);

    away.complete = false;
    await expect.poll(async () => (await patch('k-effect')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect((await patch('k-effect')).body).toEqual({ effects: 1 });
    expect(effects).toBe(1);
  });

  it('a request that failed after storing its effect, on a store that answered, replays the effect at once', async () => {
    away.afterEffect = true;
    expect((await patch('k-effect-up')).status).toBe(503);
    away.afterEffect = false;
    const retry = await fetch(`${http.baseUrl}/thing`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-effect-up' }, body: '{"x":1}' });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ effects: 1 });
    expect(effects).toBe(1);
  });

  it('logs the first refused write of a key; past maxAnswersRetrying keys an answer is not retried and its key stays held', async () => {
    away.complete = true;
    expect((await patch('k-retried')).status).toBe(503);
    expect((await patch('k-held')).status).toBe(503);
    const logged = () => warnings.map(({ idempotencyKey, write, retried }) => ({ idempotencyKey, write, retried }));
    expect(logged()).toEqual([
      { idempotencyKey: 'k-retried', write: 'answer', retried: true },
      { idempotencyKey: 'k-held', write: 'answer', retried: false },
    ]);

    // The first key's answer is written again and again; the second's never, and no retry logs again.
    await expect.poll(() => completions.get('k-retried'), { timeout: 15_000, interval: 100 }).toBeGreaterThanOrEqual(3);
    expect(completions.get('k-held')).toBe(1);
    expect(warnings).toHaveLength(2);

    away.complete = false;
    await expect.poll(async () => (await patch('k-retried')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect((await patch('k-held')).body.code).toBe('ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS');
    expect(effects).toBe(2);
  });
});
