import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createJwtKeyRing, createTokenSigner, parseJwtKeysSpec } from '../../src/auth/index.js';
import { assertServiceBuilt, runService, type ServiceProcess } from './service-process.js';
import { REDIS_URL, removeRedisPrefix } from './test-redis.js';

/** Where a deployment keeps its data beside its own DATA_DIR: MongoDB's variables, or none for SQLite. */
export interface StoreEnv {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export type ApiCall = <T>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

export interface SeparateProcesses {
  /** The deployment's environment (set once the describe's beforeAll ran). */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  /** Starts the built service in `role` and waits until it has started. */
  start(role: string): Promise<ServiceProcess>;
  /** JSON calls to an `api` process with a bearer token granting `role` in tenant `acme`. */
  callsAs(api: ServiceProcess, subject: string, role: 'MEMBER' | 'ADMIN'): Promise<ApiCall>;
}

/**
 * The built service as separate processes on one store and a Redis key prefix of its own, for the
 * current describe: set up before its tests (with `settings` added to the environment), and every
 * process killed and its data removed after them.
 */
export function separateProcesses(label: string, storeEnv: () => StoreEnv | Promise<StoreEnv>, settings: Record<string, string>): SeparateProcesses {
  const processes: ServiceProcess[] = [];
  let env: Record<string, string> = {};
  let dataDir = '';
  let dispose: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), `pe-${label}-`));
    const store = await storeEnv();
    dispose = store.dispose;
    env = {
      DATA_DIR: dataDir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomUUID()}`,
      JWT_KEYS: `k1:${randomBytes(32).toString('base64url')}`,
      HOST: '127.0.0.1',
      PORT: '0',
      ENGINE_THREADS: '1',
      LOG_LEVEL: 'info',
      RATE_LIMIT_POINTS: '1000000',
      ...settings,
      ...store.env,
    };
  });

  afterAll(async () => {
    for (const running of processes) {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
    }
    if (env.REDIS_KEY_PREFIX !== undefined) await removeRedisPrefix(env.REDIS_KEY_PREFIX);
    await dispose?.();
    if (dataDir !== '') await rm(dataDir, { recursive: true, force: true });
  });

  return {
    get env() {
      return env;
    },
    get dataDir() {
      return dataDir;
    },
    async start(role) {
      const running = runService(['--role', role], env);
      processes.push(running);
      await running.waitForLog('service started');
      return running;
    },
    async callsAs(api, subject, role) {
      const port = (await api.waitForLog('api listening')).port as number;
      const signer = createTokenSigner(createJwtKeyRing(parseJwtKeysSpec(env.JWT_KEYS!), 'JWT_KEYS'));
      const token = await signer.sign({ subject, tenantId: 'acme', roles: [role], ttlSeconds: 3600 });
      return async <T>(method: string, path: string, body?: unknown) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'acme', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as T };
      };
    },
  };
}
