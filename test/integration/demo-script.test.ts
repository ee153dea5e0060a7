// `npm run demo` as an operator runs it: the built service as a process, and the built script run
// twice against it as a process of its own; everything it claims is checked over HTTP.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicyClient } from '../../clients/typescript/src/index.js';
import { SQLITE_FILE_NAME } from '../../src/config/index.js';
import { openSqliteStore } from '../../src/store/index.js';
import { assertServiceBuilt, REDIS_URL, removeRedisPrefix, runService, unusedPort, type ServiceProcess } from '../support/index.js';

const DEMO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'scripts', 'demo.js');
const TYPES = ['HIGH_FAILURE_RATE', 'PERFORMANCE_DEGRADATION', 'ZOMBIE_VERSION'];

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** The built script with exactly `env` (plus PATH), in the temporary directory so no `.env` of the checkout is read. */
function runDemo(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEMO, ...args], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '', ...env }, timeout: 240_000 }, (error, stdout, stderr) => {
      const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout: lines(stdout), stderr: lines(stderr) });
    });
  });
}

interface Anomaly {
  id: string;
  type: string;
  status: string;
  policyModule: string;
}

describe('npm run demo', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess;
  let url: string;
  let first: Run;
  let second: Run;

  const tokenOf = (run: Run) => run.stdout[run.stdout.findIndex((line) => line.startsWith('token (role ADMIN')) + 1]!;
  const get = async <T>(run: Run, path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${tokenOf(run)}`, 'x-tenant-id': 'demo' } });
    return { status: response.status, body: (await response.json()) as T };
  };
  const anomalies = async (run: Run) => (await get<{ content: Anomaly[] }>(run, '/api/v1/audit/anomalies?size=100')).body.content;

  beforeAll(async () => {
    assertServiceBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pe-demo-'));
    env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}` };
    service = runService([], { ...env, HOST: '127.0.0.1', PORT: '0', ENGINE_THREADS: '1' });
    url = `http://127.0.0.1:${(await service.waitForLog('api listening')).port as number}`;
    first = await runDemo(['--url', url], env);
    second = await runDemo(['--url', url], env);
  }, 600_000);

  afterAll(async () => {
    if (service?.child.exitCode === null) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (env !== undefined) await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('exits 0 both times and prints the console URL and a token', () => {
    expect(first.code, first.stderr.join('\n')).toBe(0);
    expect(second.code, second.stderr.join('\n')).toBe(0);
    for (const run of [first, second]) {
      expect(run.stdout).toContain(`console: ${url}/console`);
      expect(tokenOf(run)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    }
  });

  it('registers the tenant demo: a request signed with its secret is answered', async () => {
    const store = await openSqliteStore(join(dataDir, SQLITE_FILE_NAME));
    const [secret] = await store.tenants.activeSecrets('demo');
    await store.close();
    const client = createPolicyClient({ baseUrl: url, tenantId: 'demo', role: 'MEMBER', secret: secret!.secret, retries: 0 });
    const outcome = await client.evaluateSource({ source: 'Module demo.check.\n\nRule one produce Int:\n  Return 1.\n', functionName: 'one', context: {} });
    expect(outcome.ok && outcome.result).toBe(1);
  });

  it('leaves one open anomaly of each type, the same ones after the second run', async () => {
    const afterFirst = await anomalies(first);
    const afterSecond = await anomalies(second);
    expect(afterFirst.map((a) => a.type).sort()).toEqual(TYPES);
    expect(afterSecond.map((a) => a.type).sort()).toEqual(TYPES);
    expect(afterSecond.every((a) => a.status === 'OPEN')).toBe(true);
    expect(afterSecond.map((a) => a.id).sort()).toEqual(afterFirst.map((a) => a.id).sort());
    expect(Object.fromEntries(afterSecond.map((a) => [a.type, a.policyModule]))).toEqual({
      HIGH_FAILURE_RATE: 'lending.demo',
      ZOMBIE_VERSION: 'lending.demo',
      PERFORMANCE_DEGRADATION: 'healthcare.demo',
    });
  });

  it('deploys each version once and leaves workflows waiting for a signal', async () => {
    const versions = await get<{ totalElements: number }>(second, '/api/v1/policies/lending.demo/versions');
    expect(versions.body.totalElements).toBe(2);
    const waiting = await get<{ totalElements: number }>(second, '/api/v1/workflows?status=WAITING&policyModule=insurance.demo');
    expect(waiting.body.totalElements).toBe(3);
    const all = await get<{ totalElements: number }>(second, '/api/v1/workflows?policyModule=insurance.demo');
    expect(all.body.totalElements).toBe(5);
    expect(second.stdout).toContain('  insurance.demo@1 (insurance.demo.policy) is deployed already');
  });

  it('exits 1 with one line when no service answers at the URL', async () => {
    const run = await runDemo(['--url', `http://127.0.0.1:${await unusedPort()}`], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toEqual([]);
    expect(run.stderr).toEqual([expect.stringMatching(/^error: no service answers at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): start it with `npm start`/)]);
  });
});
