import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { createApp, createTenantRateLimiter, type RouteGroup } from '../../../src/api/index.js';
import { createJwtKeyRing, createTokenSigner, createTokenVerifier, type JwtKeyRing, type Role } from '../../../src/auth/index.js';
import { createLogger } from '../../../src/logging/index.js';
import { openStore, type Store } from '../../../src/store/index.js';
import { testChainVerifier, withCommonRoutes } from '../../support/index.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Log lines written by the app, parsed. */
export class LogCapture extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') this.lines.push(JSON.parse(line));
    done();
  }
}

export interface HarnessOptions {
  /** Wraps the real store, e.g. to make one method fail. */
  wrapStore?: (store: Store) => Store;
  /** A Redis client for the app (default: a real one at REDIS_URL). */
  redis?: Redis;
  rateLimitPoints?: number;
  rateLimitWindowSeconds?: number;
  bodyLimitBytes?: number;
  routes?: RouteGroup[];
}

export interface TokenSpec {
  tenant?: string;
  roles?: unknown[];
  sub?: string;
  ttlSeconds?: number;
  /** Sign with another key ring (e.g. one the server does not know). */
  ring?: JwtKeyRing;
  now?: Date;
}

export interface Harness {
  baseUrl: string;
  store: Store;
  redis: Redis;
  keyRing: JwtKeyRing;
  logs: LogCapture;
  keyPrefix: string;
  token(spec?: TokenSpec): Promise<string>;
  /** fetch against the server; `json` sends a JSON body. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  /** GET with a valid token and tenant header for `tenant` (default `acme`) and role (default ADMIN). */
  get(path: string, options?: { tenant?: string; role?: Role; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export function randomKeyRing(kids: string[]): JwtKeyRing {
  return createJwtKeyRing(
    kids.map((kid) => ({ kid, secret: randomBytes(32).toString('base64url') })),
    'test',
  );
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'pe-http-'));
  const realStore = await openStore({ sqlitePath: join(dir, 'store.sqlite') });
  const store = options.wrapStore ? options.wrapStore(realStore) : realStore;
  const ownRedis = options.redis === undefined;
  const redis = options.redis ?? new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  // The rate limiter refuses to queue commands, so start serving once the connection is up (as src/service/request-redis.ts does).
  if (ownRedis && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const keyPrefix = `test-${randomUUID()}`;
  const keyRing = randomKeyRing(['current', 'previous']);
  const logs = new LogCapture();
  const logger = createLogger({ level: 'info', destination: logs });
  const app = createApp({
    logger,
    idempotency: store.idempotency,
    tokenVerifier: createTokenVerifier(keyRing),
    rateLimiter: createTenantRateLimiter({
      redis,
      points: options.rateLimitPoints ?? 10_000,
      windowSeconds: options.rateLimitWindowSeconds ?? 60,
      keyPrefix,
    }),
    bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024,
    routes: withCommonRoutes({ store, redis, auditVerifier: testChainVerifier(store) }, options.routes ?? []),
  });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const token = async (spec: TokenSpec = {}) => {
    const signer = createTokenSigner(spec.ring ?? keyRing);
    return signer.sign(
      {
        subject: spec.sub ?? 'alice',
        tenantId: spec.tenant ?? 'acme',
        roles: (spec.roles ?? ['ADMIN']) as Role[],
        ttlSeconds: spec.ttlSeconds ?? 600,
      },
      spec.now,
    );
  };

  const request = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init;
    if (json === undefined) return fetch(`${baseUrl}${path}`, rest);
    const headers = new Headers(rest.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return fetch(`${baseUrl}${path}`, { method: 'POST', ...rest, headers, body: JSON.stringify(json) });
  };

  return {
    baseUrl,
    store,
    redis,
    keyRing,
    logs,
    keyPrefix,
    token,
    request,
    async get(path, opts = {}) {
      const tenant = opts.tenant ?? 'acme';
      const bearer = await token({ tenant, roles: [opts.role ?? 'ADMIN'] });
      return request(path, { headers: { authorization: `Bearer ${bearer}`, 'x-tenant-id': tenant, ...opts.headers } });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      const keys = await redis.keys(`${keyPrefix}*`).catch(() => [] as string[]);
      if (keys.length > 0) await redis.del(...keys);
      if (ownRedis) await redis.quit();
      await realStore.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The error envelope of a response, checked for its shape. */
export async function envelope(response: Response): Promise<{ result: null; error: string; executionTimeMs: number; code: string }> {
  const body = (await response.json()) as Record<string, unknown>;
  if (body.result !== null || typeof body.error !== 'string' || typeof body.code !== 'string' || typeof body.executionTimeMs !== 'number') {
    throw new Error(`not an error envelope: ${JSON.stringify(body)}`);
  }
  return body as { result: null; error: string; executionTimeMs: number; code: string };
}
