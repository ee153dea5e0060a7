// The TypeScript client as a package, the way a project outside this repository gets it: `npm pack`
// in clients/typescript (its prepack builds dist/), `npm install` of the tarball into an empty
// project, a program compiled with TypeScript's default options (only module and moduleResolution
// set; no @types/node, nothing else installed) and run with node against the built service.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTenantCli } from '../../scripts/tenant.js';
import { runTokenCli } from '../../scripts/token.js';
import { assertServiceBuilt, REDIS_URL, runService, type ServiceProcess } from '../support/index.js';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGE_DIR = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** npm as a user runs it: none of the `npm_*` settings of an `npm test` around this run. */
const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

async function npm(args: string[], cwd: string) {
  return run('npm', args, { cwd, env: npmEnv, maxBuffer: 16 * 1024 * 1024 });
}

/** tsc with exactly these options besides the defaults; its report is the failure message. */
async function tsc(cwd: string, options: string[]) {
  try {
    await run(process.execPath, [TSC, ...options, 'main.ts'], { cwd });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc ${options.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

// Written without async functions: with no options at all TypeScript's target is ES5, whose
// library has no Promise constructor, and the bundler check below keeps that default.
const MAIN_TS = `import { createPolicyClient, PolicyHttpError, type EvaluationOutcome, type PolicyClient } from '@policy-engine/client';

declare const process: { argv: string[]; exitCode: number | undefined };

const [baseUrl, memberToken, adminToken, secret] = process.argv.slice(2) as [string, string, string, string];
const member: PolicyClient = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', bearerToken: memberToken });
const admin = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'ADMIN', bearerToken: adminToken });
const signed = createPolicyClient({ baseUrl, tenantId: 'acme', role: 'MEMBER', secret });
const source = 'Module acme.pricing.\\n\\nRule price given amount as Int, produce Int:\\n  Return amount times 2.\\n';

function print(step: string, fields: object): void {
  console.log(JSON.stringify({ step, ...fields }));
}

// \`=== true\`, not truthiness: without strictNullChecks (off by default) only a comparison narrows the outcome.
function summary(outcome: EvaluationOutcome<number>): object {
  return outcome.ok === true ? { ok: true, result: outcome.result, receipt: outcome.receipt !== null } : { ok: false, code: outcome.code };
}

// An active deploy needs ADMIN; a MEMBER evaluates.
admin
  .deployPolicy({ source, locale: 'en-US' })
  .then((deployed) => {
    print('deploy', { versionId: deployed.versionId, functions: deployed.functions.map((f) => f.name) });
    return member.evaluatePolicy<number>({ policyModule: 'acme.pricing', policyFunction: 'price', context: { amount: 21 } });
  })
  .then((deployed) => {
    print('evaluatePolicy', { ...summary(deployed), versionId: deployed.policy === null ? null : deployed.policy.versionId, status: deployed.status });
    // A receipt of null (nothing recorded) would make checkReceipt throw: the program fails.
    return admin.checkReceipt(deployed.receipt!, { untilLinked: true, verifyChain: true });
  })
  .then((check) => {
    print('checkReceipt', { status: check.status });
    return signed.evaluateSource<number>({ source, functionName: 'price', context: { amount: 5 } });
  })
  .then((fromSource) => {
    print('evaluateSource', summary(fromSource));
    return signed.evaluateBatch<number>([
      { source, functionName: 'price', context: [1] },
      { policyModule: 'acme.pricing', policyFunction: 'price', version: 1, context: { amount: 2 } },
      { policyModule: 'acme.pricing', policyFunction: 'nothing', context: {} },
    ]);
  })
  .then((batch) => {
    print('evaluateBatch', { results: batch.results.map(summary) });
    return member.evaluatePolicy({ policyModule: 'acme.nothing', policyFunction: 'price', context: {} }).then(
      () => print('unknown', { thrown: false }),
      (error: unknown) => print('unknown', error instanceof PolicyHttpError ? { status: error.status, code: error.code } : { other: String(error) }),
    );
  })
  .catch((error: unknown) => {
    print('failed', { error: String(error) });
    process.exitCode = 1;
  });

// Never called: what the declarations must refuse.
export function misuse(client: PolicyClient): void {
  // @ts-expect-error policyFunction and context are required
  void client.evaluatePolicy({ policyModule: 'acme.pricing' });
  // @ts-expect-error a batch item is source text or a deployed policy
  void client.evaluateBatch([{ functionName: 'price', context: {} }]);
  // @ts-expect-error the result's type is the caller's
  const wrong: Promise<{ result: string }> = client.evaluatePolicy<number>({ policyModule: 'm', policyFunction: 'f', context: {} }).then((o) => (o.ok === true ? o : { result: 1 }));
  void wrong;
}
`;

describe('the TypeScript client as an npm package', () => {
  let work: string;
  let app: string;
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    assertServiceBuilt();
    work = await mkdtemp(join(tmpdir(), 'pe-client-package-'));
    app = join(work, 'app');
    await mkdir(app);
    // prepack builds dist/ with the package's own tsconfig.json.
    await npm(['pack', '--pack-destination', work], PACKAGE_DIR);
  }, 180_000);

  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    if (work !== undefined) await rm(work, { recursive: true, force: true });
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('packs only dist/, the manifest and the README, with no dependencies', async () => {
    const tarballs = readdirSync(work).filter((name) => name.endsWith('.tgz'));
    expect(tarballs).toEqual(['policy-engine-client-0.1.0.tgz']);
    const entries = (await run('tar', ['-tzf', join(work, tarballs[0]!)])).stdout.trim().split('\n');
    expect(entries.filter((entry) => !entry.startsWith('package/dist/')).sort()).toEqual(['package/README.md', 'package/package.json']);
    expect(entries).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts']));
    // No test, source or build info of the repository travels with it.
    expect(entries.filter((entry) => !/^package\/dist\/[\w-]+\.(js|d\.ts)$/.test(entry) && entry.startsWith('package/dist/'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: '@policy-engine/client',
      version: '0.1.0',
      type: 'module',
      files: ['dist'],
      exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    });
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.peerDependencies).toBeUndefined();
  });

  it('installs into an empty project, compiles with the default options and runs against the service', async () => {
    await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'client-package-check', private: true, type: 'module' }, null, 2)}\n`);
    await npm(['install', '--offline', '--no-audit', '--no-fund', join(work, 'policy-engine-client-0.1.0.tgz')], app);
    expect(readdirSync(join(app, 'node_modules')).sort()).toEqual(['.package-lock.json', '@policy-engine']);
    await writeFile(join(app, 'main.ts'), MAIN_TS);

    await tsc(app, ['--module', 'node16', '--moduleResolution', 'node16']);
    await tsc(app, ['--noEmit', '--module', 'esnext', '--moduleResolution', 'bundler']);

    dataDir = await mkdtemp(join(tmpdir(), 'pe-client-package-data-'));
    const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_KEY_PREFIX: `test-${randomUUID()}`, HOST: '127.0.0.1', PORT: '0' };
    service = runService([], env);
    const listening = await service.waitForLog((line) => line.msg === 'api listening');
    const baseUrl = `http://127.0.0.1:${listening.port as number}`;
    const cli = async (runCli: typeof runTenantCli, args: string[]) => {
      const lines: string[] = [];
      const errors: string[] = [];
      const code = await runCli(args, { env, out: (line) => lines.push(line), err: (line) => errors.push(line) });
      expect(code, errors.join('\n')).toBe(0);
      return lines.at(-1)!;
    };
    const secret = await cli(runTenantCli, ['create', 'acme']);
    const memberToken = await cli(runTokenCli, ['--tenant', 'acme', '--role', 'MEMBER']);
    const adminToken = await cli(runTokenCli, ['--tenant', 'acme', '--role', 'ADMIN']);

    const { stdout } = await run(process.execPath, ['main.js', baseUrl, memberToken, adminToken, secret], { cwd: app, timeout: 60_000 });
    const steps = Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { step: string })
        .map(({ step, ...fields }) => [step, fields]),
    );
    expect(steps).toEqual({
      deploy: { versionId: 'acme.pricing@1', functions: ['price'] },
      evaluatePolicy: { ok: true, result: 42, receipt: true, versionId: 'acme.pricing@1', status: 200 },
      checkReceipt: { status: 'linked' },
      evaluateSource: { ok: true, result: 10, receipt: true },
      evaluateBatch: {
        results: [
          { ok: true, result: 2, receipt: true },
          { ok: true, result: 4, receipt: true },
          { ok: false, code: 'ERR_POLICY_FUNCTION_NOT_FOUND' },
        ],
      },
      unknown: { status: 404, code: 'ERR_POLICY_NOT_FOUND' },
    });

    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 180_000);
});
