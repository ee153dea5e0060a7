// Tests gate a deploy: the cases of `<module>.tests.json` sent with the source run in the engine
// (through the queue, on the worker's threads) before anything is stored; one failing case refuses
// the deploy with 422 and the failures, and nothing changes. Over real HTTP, Redis and SQLite.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenSigner } from '../../src/auth/index.js';
import { main } from '../../src/cli/main.js';
import { failure, startPoliciesHarness, type PoliciesHarness } from './policies-support/policies-harness.js';

const SOURCE = `Module acme.tested.

Define Quote has price as Int, band as Text.

Rule quote given amount as Int, produce Quote:
  If amount is greater than 100:
    Fail with "amount too large".
  Return Quote with price set to amount times 2, band set to "standard".
`;

const PASSING = {
  cases: [
    { name: 'doubles the amount', rule: 'quote', context: { amount: 21 }, expect: { price: 42, band: 'standard' } },
    { name: 'names the band', why: 'only one band so far', rule: 'quote', context: [5], expectFields: { band: 'standard' } },
  ],
};

interface Failures {
  failures: Array<{ name: string; rule: string; expected: unknown; actual: unknown; reason: string }>;
}

let h: PoliciesHarness;

beforeAll(async () => {
  h = await startPoliciesHarness();
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const deploy = (body: Record<string, unknown>, tenant = h.tenants.a) => h.signed(tenant, 'ADMIN').request<{ version: number }>('POST', '/api/v1/policies', body);
const versionsOf = async (policyModule: string) => {
  const page = await h.signed(h.tenants.a, 'VIEWER').request<{ content: Array<{ version: number }> }>('GET', `/api/v1/policies/${policyModule}/versions`);
  return page.body.content.map((v) => v.version);
};

describe('tests that gate a deploy', () => {
  it('deploys when every case passes, with expected errors among them', async () => {
    const probe = await h.signed(h.tenants.a, 'MEMBER').request<{ code: string }>('POST', '/api/v1/policies/evaluate-source', {
      source: SOURCE,
      functionName: 'quote',
      context: { amount: 101 },
      locale: 'en-US',
    });
    const failCode = probe.body.code;
    expect(failCode).toMatch(/^PL\d{4}$/);
    const tests = { cases: [...PASSING.cases, { name: 'refuses large amounts', rule: 'quote', context: { amount: 101 }, expectError: failCode }] };
    const deployed = await deploy({ source: SOURCE, locale: 'en-US', tests });
    expect(deployed.status).toBe(201);
    expect(deployed.body.version).toBe(1);
    expect(await versionsOf('acme.tested')).toEqual([1]);
  });

  it('refuses with 422 listing each failing case, expected beside actual, and stores nothing', async () => {
    const deployedBefore = (await h.auditOfType(h.tenants.a, 'POLICY_DEPLOYED')).length;
    const changed = SOURCE.replace('amount times 2', 'amount times 3');
    const refused = await failure(
      deploy({
        source: changed,
        tests: {
          cases: [
            ...PASSING.cases,
            { name: 'a rule that is not there', rule: 'quota', context: {}, expect: 1 },
            { name: 'expects an error it does not get', rule: 'quote', context: { amount: 1 }, expectError: 'PL9999' },
          ],
        },
      }),
    );
    expect([refused.status, refused.code]).toEqual([422, 'ERR_POLICY_TESTS_FAILED']);
    expect(refused.body.error).toBe('3 of the 4 test cases failed; nothing was deployed (see `failures`)');
    const { failures } = refused.body as unknown as Failures;
    expect(failures.map((f) => f.name)).toEqual(['doubles the amount', 'a rule that is not there', 'expects an error it does not get']);
    expect(failures[0]).toEqual({
      name: 'doubles the amount',
      rule: 'quote',
      expected: { result: { price: 42, band: 'standard' } },
      actual: { result: { price: 63, band: 'standard' } },
      reason: 'expected {"price":42,"band":"standard"}, got {"price":63,"band":"standard"}',
    });
    expect(failures[1]).toMatchObject({ rule: 'quota', expected: { result: 1 }, actual: { error: expect.stringMatching(/^PL\d{4}$/) } });
    expect(failures[2]).toMatchObject({ expected: { error: 'PL9999' }, actual: { result: { price: 3, band: 'standard' } } });
    // Nothing stored: still version 1 only, still active, and no deploy recorded.
    expect(await versionsOf('acme.tested')).toEqual([1]);
    const evaluated = await h.signed(h.tenants.a, 'MEMBER').request<{ result: unknown; version: number }>('POST', '/api/v1/policies/evaluate', {
      policyModule: 'acme.tested',
      policyFunction: 'quote',
      context: { amount: 21 },
    });
    expect(evaluated.body).toMatchObject({ result: { price: 42, band: 'standard' }, version: 1 });
    expect(await h.auditOfType(h.tenants.a, 'POLICY_DEPLOYED')).toHaveLength(deployedBefore);
  });

  it('runs the cases without auditing them as evaluations or counting them in the rollups', async () => {
    const recordsBefore = (await h.auditOfType(h.tenants.b, 'SOURCE_EVALUATED')).length + (await h.auditOfType(h.tenants.b, 'POLICY_EVALUATED')).length;
    const deployed = await deploy({ source: SOURCE.replace('acme.tested', 'acme.quiet'), tests: PASSING }, h.tenants.b);
    expect(deployed.status).toBe(201);
    const recordsAfter = (await h.auditOfType(h.tenants.b, 'SOURCE_EVALUATED')).length + (await h.auditOfType(h.tenants.b, 'POLICY_EVALUATED')).length;
    expect(recordsAfter).toBe(recordsBefore);
    const window = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), policyModule: 'acme.quiet' };
    await h.stack.evaluation.flush();
    expect(await h.store.rollups.range(h.tenants.b.tenantId, window)).toEqual([]);
    // The same flush does store an evaluation of the deployed version: the check above could see one.
    await h.signed(h.tenants.b, 'MEMBER').request('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.quiet', policyFunction: 'quote', context: { amount: 1 } });
    await h.stack.evaluation.flush();
    expect(await h.store.rollups.range(h.tenants.b.tenantId, window)).toHaveLength(1);
  });

  it.each([
    ['a case with two expectations', { cases: [{ name: 'x', rule: 'quote', context: {}, expect: 1, expectError: 'PL1001' }] }, 'exactly one of'],
    ['no cases', { cases: [] }, 'tests'],
    ['more cases than allowed', { cases: Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}`, rule: 'quote', expect: 1 })) }, 'tests'],
    ['an unknown field', { cases: [{ name: 'x', rule: 'quote', expect: 1, expected: 2 }] }, 'expected'],
  ])('refuses tests with %s as a bad request, changing nothing', async (_label, tests, fragment) => {
    const refused = await failure(deploy({ source: SOURCE.replace('acme.tested', 'acme.malformed'), tests }));
    expect([refused.status, refused.code]).toEqual([400, 'ERR_POLICY_REQUEST_INVALID']);
    expect(String(refused.body.error)).toContain(fragment);
    expect((await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.malformed/versions'))).status).toBe(404);
  });
});

describe('policy deploy', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pe-deploy-cli-'));
    await mkdir(join(dir, 'good'));
    await writeFile(join(dir, 'good', 'acme.cli.policy'), SOURCE.replace('acme.tested', 'acme.cli'));
    await writeFile(join(dir, 'good', 'acme.cli.tests.json'), JSON.stringify(PASSING));
    await writeFile(join(dir, 'good', 'acme.untested.policy'), SOURCE.replace('acme.tested', 'acme.untested'));
    await writeFile(join(dir, 'acme.wrong.policy'), SOURCE.replace('acme.tested', 'acme.wrong').replace('times 2', 'times 5'));
    await writeFile(join(dir, 'acme.wrong.tests.json'), JSON.stringify(PASSING));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(args: string[]) {
    let out = '';
    let err = '';
    const code = await main(['deploy', ...args], { out: (text) => void (out += text), err: (text) => void (err += text) });
    return { code, out, err };
  }

  it('signs and deploys each module of a directory with the tests beside it, exiting 0', async () => {
    const a = h.tenants.a;
    const { code, out, err } = await run([join(dir, 'good'), '--url', h.baseUrl, '--tenant', a.tenantId, '--secret', a.secret]);
    expect(err).toBe('');
    expect(out).toBe(
      `deployed ${join(dir, 'good', 'acme.cli.policy')}: acme.cli@1 for tenant ${a.tenantId} after its 2 test cases passed\n` +
        `deployed ${join(dir, 'good', 'acme.untested.policy')}: acme.untested@1 for tenant ${a.tenantId}, no tests beside it\n` +
        'DEPLOYED: 2 of 2 modules deployed\n',
    );
    expect(code).toBe(0);
    expect(await versionsOf('acme.cli')).toEqual([1]);
  });

  it('reports a refused module with its failing cases and exits 1, with a bearer token naming the tenant', async () => {
    const token = await createTokenSigner(h.keyRing).sign({ subject: 'ci', tenantId: h.tenants.a.tenantId, roles: ['ADMIN'], ttlSeconds: 300 });
    const file = join(dir, 'acme.wrong.policy');
    const { code, out, err } = await run([file, '--url', h.baseUrl, '--token', token]);
    expect(code).toBe(1);
    expect(err).toBe(
      `REFUSED ${file}: 422 ERR_POLICY_TESTS_FAILED 1 of the 2 test cases failed; nothing was deployed (see \`failures\`)\n` +
        '  FAIL doubles the amount: expected {"price":42,"band":"standard"}, got {"price":105,"band":"standard"}\n',
    );
    expect(out).toBe('REFUSED: 0 of 1 modules deployed\n');
    expect((await failure(h.signed(h.tenants.a, 'VIEWER').request('GET', '/api/v1/policies/acme.wrong/versions'))).status).toBe(404);
  });

  it('rolls versions out in the shadow with a MEMBER\'s signature, and as a canary, saying so', async () => {
    const a = h.tenants.a;
    const file = join(dir, 'good', 'acme.cli.policy');
    const shadow = await run([file, '--url', h.baseUrl, '--tenant', a.tenantId, '--secret', a.secret, '--shadow', '--percent', '50']);
    expect(shadow.err).toBe('');
    expect(shadow.out).toBe(
      `deployed ${file}: acme.cli@2 in a shadow rollout at 50 % beside version 1 for tenant ${a.tenantId} after its 2 test cases passed\n` +
        'DEPLOYED: 1 of 1 modules deployed\n',
    );
    const rollout = await h.signed(a, 'VIEWER').request<{ mode: string; percent: number; startedBy: string }>('GET', '/api/v1/policies/acme.cli/rollout');
    expect(rollout.body).toMatchObject({ mode: 'shadow', percent: 50, startedBy: `signed:${a.tenantId}` });
    // Another rollout waits for this one: refused, exit 1.
    const canary = await run([file, '--url', h.baseUrl, '--tenant', a.tenantId, '--secret', a.secret, '--canary', '--percent', '5', '--sticky-key', 'amount']);
    expect(canary.code).toBe(1);
    expect(canary.err).toContain('409 ERR_POLICY_ROLLOUT_IN_PROGRESS');
    await h.signed(a, 'ADMIN').request('POST', '/api/v1/policies/acme.cli/rollout/abort', {});
    const again = await run([file, '--url', h.baseUrl, '--tenant', a.tenantId, '--secret', a.secret, '--canary', '--percent', '5', '--sticky-key', 'amount']);
    expect(again.out).toContain('acme.cli@3 in a canary rollout at 5 % beside version 1');
    expect(again.code).toBe(0);
  });

  it('exits 2 on bad usage, sending nothing', async () => {
    const signedBy = ['--tenant', h.tenants.a.tenantId, '--secret', h.tenants.a.secret];
    for (const flags of [['--shadow', '--canary'], ['--canary'], ['--canary', '--percent', '101'], ['--percent', '5'], ['--shadow', '--sticky-key', 'a'], ['--canary', '--percent', '5', '--capture-contexts']]) {
      expect((await run([join(dir, 'good'), '--url', h.baseUrl, ...signedBy, ...flags])).code, flags.join(' ')).toBe(2);
    }
    expect((await run([dir, '--url', h.baseUrl])).code).toBe(2);
    expect((await run([dir, '--url', 'ftp://x', '--token', 't', '--tenant', 'a'])).code).toBe(2);
    expect((await run([join(dir, 'nothing-here'), '--url', h.baseUrl, '--token', 't', '--tenant', 'a'])).code).toBe(2);
  });
});
