import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { createPolicyClient } from '../../clients/typescript/src/index.js';
import { assertServiceBuilt, MAIN, REDIS_URL, runService, unusedPort, type ServiceProcess } from '../support/index.js';

const silentIo = (env: Record<string, string>) => {
  const out: string[] = [];
  return { env, out: (line: string) => out.push(line), err: () => {}, lines: out };
};

describe('the service process (npm start)', () => {
  let dataDir: string;
  let running: ServiceProcess | undefined;
  let baseEnv: Record<string, string>;

  beforeAll(assertServiceBuilt);
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pe-main-'));
    baseEnv = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0' };
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
    running = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the API on the embedded store and stops cleanly on SIGTERM', async () => {
    running = runService([], baseEnv);
    const listening = await running.waitForLog((l) => l.msg === 'api listening');
    expect(listening).toMatchObject({ role: 'all', store: 'sqlite' });
    expect(running.lines.some((l) => l.msg === 'worker started')).toBe(true);
    const base = `http://127.0.0.1:${listening.port as number}`;

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ready', checks: { store: 'ok', redis: 'ok' } });

    // The scripts share the service's key file and store.
    const created = silentIo(baseEnv);
    expect(await runTenantCli(['create', 'acme'], created)).toBe(0);
    const minted = silentIo(baseEnv);
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN'], minted)).toBe(0);
    const response = await fetch(`${base}/api/v1/audit`, {
      headers: { authorization: `Bearer ${minted.lines[0]}`, 'x-tenant-id': 'acme' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(running.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });

  it('answers signed evaluations and GraphQL decisions end to end and audits them', async () => {
    running = runService([], baseEnv);
    const listening = await running.waitForLog((l) => l.msg === 'api listening');
    const baseUrl = `http://127.0.0.1:${listening.port as number}`;
    const created = silentIo(baseEnv);
    expect(await runTenantCli(['create', 'acme'], created)).toBe(0);
    const secret = created.lines.at(-1)!;
    const client = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret });

    const evaluated = await client.evaluateSource({
      source: 'Module m.\nRule f given x as Int, produce Int:\n  Return x times 2.\n',
      functionName: 'f',
      context: { x: 21 },
      locale: 'en-US',
    });
    expect(evaluated).toMatchObject({ ok: true, result: 42 });

    const decided = await client.graphql(
      `query($a: LoanApplication!, $p: LoanApplicant!) {
        evaluateLoanEligibility(application: $a, applicant: $p) { eligible maxApprovedAmount interestRate rejectionReasons }
      }`,
      {
        a: { requestedAmount: 20000, termMonths: 36, purpose: 'CAR' },
        p: { age: 17, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
      },
    );
    expect(decided).toMatchObject({
      ok: true,
      data: {
        evaluateLoanEligibility: { eligible: false, maxApprovedAmount: 0, interestRate: 0, rejectionReasons: ['applicant under 18'] },
      },
    });

    const minted = silentIo(baseEnv);
    expect(await runTokenCli(['--tenant', 'acme', '--role', 'ADMIN'], minted)).toBe(0);
    const audit = (await (
      await fetch(`${baseUrl}/api/v1/audit`, { headers: { authorization: `Bearer ${minted.lines[0]}`, 'x-tenant-id': 'acme' } })
    ).json()) as Array<{ eventType: string; policyModule: string | null }>;
    expect(audit.map((r) => [r.eventType, r.policyModule])).toEqual(
      expect.arrayContaining([
        ['SOURCE_EVALUATED', 'm'],
        ['POLICY_EVALUATED', 'lending.loan'],
      ]),
    );
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('runs only the worker with --role worker and stops on SIGINT', async () => {
    running = runService(['--role', 'worker'], baseEnv);
    await running.waitForLog((l) => l.msg === 'service started');
    expect(running.lines.some((l) => l.msg === 'worker started' && l.role === 'worker')).toBe(true);
    expect(running.lines.some((l) => l.msg === 'api listening')).toBe(false);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
  });

  it('takes the role from ROLE when no flag is given', async () => {
    running = runService([], { ...baseEnv, ROLE: 'api' });
    await running.waitForLog((l) => l.msg === 'service started');
    expect(running.lines.some((l) => l.msg === 'worker started')).toBe(false);
    expect(running.lines.some((l) => l.msg === 'api listening' && l.role === 'api')).toBe(true);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('exits 1 with one line saying what to start when Redis is unreachable', async () => {
    const url = `redis://127.0.0.1:${await unusedPort()}`;
    running = runService([], { ...baseEnv, REDIS_URL: url });
    expect(await running.exited).toBe(1);
    expect(running.stderr).toHaveLength(1);
    expect(running.stderr[0]).toMatch(
      new RegExp(`^redis is not reachable at ${url.replaceAll('.', '\\.')} \\(.+\\): start it with \`redis-server\` or set REDIS_URL$`),
    );
    expect(running.lines).toEqual([]);
  });

  it('exits 1 naming the variable when the configuration is invalid', async () => {
    running = runService([], { ...baseEnv, PORT: 'eighty' });
    expect(await running.exited).toBe(1);
    expect(running.stderr).toEqual(['invalid configuration: PORT must be a whole number between 0 and 65535 (got "eighty")']);
  });

  it('exits 1 for an unknown --role', async () => {
    running = runService(['--role', 'boss'], baseEnv);
    expect(await running.exited).toBe(1);
    expect(running.stderr.join('\n')).toContain('api, worker, all');
  });

  it('says where it listens in one readable line on stderr, beside the JSON log', async () => {
    running = runService([], baseEnv);
    const listening = await running.waitForLog('service started');
    const port = (running.lines.find((l) => l.msg === 'api listening')!.port as number).toString();
    await expect.poll(() => running!.stderr.length).toBe(1);
    expect(running.stderr[0]).toMatch(new RegExp(`^policy engine \\S+ started, role all: API at http://127\\.0\\.0\\.1:${port} .*SQLite at .*Stop with Ctrl-C\\.$`));
    expect(listening).toMatchObject({ role: 'all' });
  });

  it('writes readable log lines with LOG_FORMAT=pretty', async () => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...baseEnv, LOG_FORMAT: 'pretty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    await expect.poll(() => out, { timeout: 20_000 }).toContain('service started');
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
    expect(out).toMatch(/INFO.*service started/);
    expect(out.split('\n').some((line) => line.startsWith('{'))).toBe(false);
  });
});

describe('npm start', () => {
  beforeAll(assertServiceBuilt);

  it('hands the signals to node itself: stopping npm stops the service, nothing is left serving', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pe-npm-start-'));
    const env = { ...process.env, DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' };
    const npm = spawn('npm', ['start', '--silent'], { cwd: join(MAIN, '..', '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      npm.stdout.on('data', (chunk) => (out += chunk));
      // npm's own start-up comes first; beside another suite it can take most of a minute.
      await expect.poll(() => out, { timeout: 60_000 }).toContain('"msg":"service started"');
      const servicePid = Number(/"pid":(\d+)/.exec(out)![1]);
      // Node is npm's own child (no shell in between to swallow the signal).
      const parent = readFileSync(`/proc/${servicePid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1];
      expect(Number(parent)).toBe(npm.pid);
      npm.kill('SIGTERM');
      await new Promise((resolve) => npm.on('exit', resolve));
      await expect.poll(() => existsSync(`/proc/${servicePid}`), { timeout: 15_000 }).toBe(false);
      expect(out).toContain('"msg":"stopped"');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
