// POST /api/v1/policies/check: a module source compiled (and its cases run, and it printed in
// another locale) in the engine as a deploy would, answered as `policy check --json` prints it,
// storing nothing. Over real HTTP, Redis, the worker's threads and SQLite.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyCheck } from '../../clients/typescript/src/index.js';
import { main } from '../../src/cli/main.js';
import { failure, startPoliciesHarness, type PoliciesHarness, type TenantInfo } from './policies-support/policies-harness.js';

const EN = `Module acme.checked.

Define Quote has price as Int, band as Text.

Rule quote given amount as Int, produce Quote:
  If amount is greater than 100:
    Fail with "amount too large".
  Return Quote with price set to amount times 2, band set to "standard".
`;

const DE = `Modul kredit.demo.

Regel zins gegeben punkte als Ganzzahl, liefert Ganzzahl:
  Wenn punkte ist mindestens 740:
    Liefere 425.
  Liefere 600.
`;

const ZH = `模块 贷款.示例。

规则 利率 给定 分数 为 整数，产出 整数：
  如果 分数 至少 740：
    返回 425。
  返回 600。
`;

/** `scor` on line 3 is no name the rule knows. */
const UNKNOWN_NAME = `Module acme.broken.
Rule r given score as Int, produce Int:
  Return scor + 1.
`;

let h: PoliciesHarness;
let dir: string;

beforeAll(async () => {
  h = await startPoliciesHarness();
  dir = await mkdtemp(join(tmpdir(), 'pe-check-'));
}, 60_000);

afterAll(async () => {
  await h?.close();
  await rm(dir, { recursive: true, force: true });
});

const check = async (body: unknown, tenant: TenantInfo = h.tenants.a, role: 'MEMBER' | 'VIEWER' = 'MEMBER') =>
  (await h.bearer(tenant, role)).request<PolicyCheck>('POST', '/api/v1/policies/check', body as Record<string, unknown>);

/** What `policy` prints for the source saved as a file, and its exit code. */
async function cli(args: string[], source: string) {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.policy`);
  await writeFile(file, source);
  let out = '';
  let err = '';
  const code = await main([...args, file], { out: (text) => void (out += text), err: (text) => void (err += text) });
  return { code, out, err, file };
}

describe('a module that compiles', () => {
  it.each([
    ['en-US', EN, 'acme.checked', [{ name: 'quote', parameters: [{ name: 'amount', type: 'Int' }], returns: 'Quote' }]],
    ['de-DE', DE, 'kredit.demo', [{ name: 'zins', parameters: [{ name: 'punkte', type: 'Int' }], returns: 'Int' }]],
    ['zh-CN', ZH, '贷款.示例', [{ name: '利率', parameters: [{ name: '分数', type: 'Int' }], returns: 'Int' }]],
  ])('answers 200 with its rules, in %s detected from the header, as `policy check --json` prints it', async (locale, source, module, functions) => {
    const answer = await check({ source });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, locale, module, functions, workflows: [], diagnostics: [] });
    const printed = await cli(['check', '--json'], source);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.out)).toEqual(answer.body);
  });

  it('reads the source in the locale given, and signed requests are answered alike', async () => {
    const answer = await h.signed(h.tenants.a, 'MEMBER').checkPolicy({ source: DE, locale: 'de-DE' });
    expect(answer).toMatchObject({ ok: true, locale: 'de-DE', module: 'kredit.demo' });
    // The header names de-DE; read as en-US it does not compile.
    const misread = await check({ source: DE, locale: 'en-US' });
    expect(misread.body).toMatchObject({ ok: false, locale: 'en-US', module: null, functions: [] });
    expect(misread.body.diagnostics.length).toBeGreaterThan(0);
  });
  it('is ok with warnings, each with its help', async () => {
    const source = EN.replace('band set to "standard".\n', 'band set to "standard".\n  Return Quote with price set to 0, band set to "none".\n');
    const answer = await check({ source });
    expect(answer.body).toMatchObject({ ok: true, module: 'acme.checked' });
    expect(answer.body.diagnostics).toEqual([
      {
        code: 'PL2021',
        severity: 'warning',
        message: 'unreachable statement: every path before it has already ended the rule',
        help: 'remove it, or move it before the `Return` or `Fail with`',
        span: expect.objectContaining({ start: expect.objectContaining({ line: 9, column: 3 }) }),
      },
    ]);
  });
});

describe('a module with errors', () => {
  it('is a 200 with ok false and its diagnostics, spans numbered as `policy check` prints them', async () => {
    const answer = await check({ source: UNKNOWN_NAME, showIn: 'de-DE', tests: { cases: [{ name: 'one', rule: 'r', context: { score: 1 }, expect: 2 }] } });
    expect(answer.status).toBe(200);
    const offset = UNKNOWN_NAME.indexOf('scor +');
    expect(answer.body).toEqual({
      ok: false,
      locale: 'en-US',
      module: null,
      functions: [],
      workflows: [],
      diagnostics: [
        {
          code: 'PL2001',
          severity: 'error',
          message: 'unknown name `scor`; did you mean `score`?',
          span: { start: { line: 3, column: 10, offset }, end: { line: 3, column: 14, offset: offset + 4 } },
        },
      ],
    });
    // No cases run and nothing printed for a module that does not compile.
    const text = await cli(['check'], UNKNOWN_NAME);
    expect(text.code).toBe(1);
    expect(text.err).toContain(`--> ${text.file}:3:10\n`);
    const json = await cli(['check', '--json'], UNKNOWN_NAME);
    expect([json.code, JSON.parse(json.out)]).toEqual([1, answer.body]);
  });

  it('numbers a zh-CN span in UTF-16 code units from the start of the line, as the text output does', async () => {
    const source = ZH.replace('返回 600。', '返回 信用 加上 1。');
    const answer = await check({ source });
    const [first] = answer.body.diagnostics;
    expect(first).toMatchObject({ code: 'PL2001', severity: 'error' });
    expect(source.slice(first!.span!.start.offset, first!.span!.end.offset)).toBe('信用');
    const text = await cli(['check'], source);
    expect(text.err).toContain(`--> ${text.file}:${first!.span!.start.line}:${first!.span!.start.column}\n`);
  });

  it('reports the first 20 warnings and the first 20 errors in source order, however many the source has', async () => {
    // 30 rules with an unreachable statement (a warning each) before a list of 5,000 unknown names.
    const warned = Array.from({ length: 30 }, (_, i) => `Rule w${i} given x as Int, produce Int:\n  Return x.\n  Return 0.\n`).join('\n');
    const names = Array.from({ length: 5000 }, (_, i) => `a${i}`).join(', ');
    const source = `Module acme.noisy.\n\n${warned}\nRule r given x as Int, produce Int:\n  Return count([${names}]).\n`;
    const answer = await check({ source });
    expect(answer.status).toBe(200);
    expect(answer.body.ok).toBe(false);
    const listed = answer.body.diagnostics.map((d) => (d.code === 'PL2001' ? source.slice(d.span!.start.offset, d.span!.end.offset) : d.code));
    expect(listed).toEqual([...Array<string>(20).fill('PL2021'), ...Array.from({ length: 20 }, (_, i) => `a${i}`)]);
    const json = await cli(['check', '--json'], source);
    expect([json.code, JSON.parse(json.out)]).toEqual([1, answer.body]);
  });
});

describe('tests', () => {
  const PASSING = [
    { name: 'doubles the amount', rule: 'quote', context: { amount: 21 }, expect: { price: 42, band: 'standard' } },
    { name: 'names the band', rule: 'quote', context: [5], expectFields: { band: 'standard' } },
  ];

  it('reports every case passed, and ok', async () => {
    const answer = await check({ source: EN, tests: { cases: PASSING } });
    expect(answer.body.ok).toBe(true);
    expect(answer.body.tests).toEqual({
      passed: 2,
      failed: 0,
      cases: [
        { name: 'doubles the amount', rule: 'quote', passed: true, expected: { result: { price: 42, band: 'standard' } }, actual: { result: { price: 42, band: 'standard' } } },
        { name: 'names the band', rule: 'quote', passed: true, expected: { fields: { band: 'standard' } }, actual: { result: { price: 10, band: 'standard' } } },
      ],
    });
  });

  it('shares the answer among the cases: each result may take 1/n of it, as in an evaluation batch', async () => {
    // A Text of 983,040 characters in 16 steps: within the engine's 1 MiB per result.
    const source = `Module acme.wide.\n\nRule wide given x as Int, produce Text:\n  Let t be "${'x'.repeat(15)}".\n${'  Let t be t + t.\n'.repeat(16)}  Return t.\n`;
    const wide = { name: 'wide', rule: 'wide', context: { x: 1 }, expectError: 'PL4006' };
    const alone = await check({ source, tests: { cases: [wide] } });
    expect(alone.body.tests!.cases[0]).toMatchObject({ passed: false, actual: { result: 'x'.repeat(15 * 2 ** 16) } });
    // 20 cases share 16 MiB: 838,860 bytes each, too few for the Text.
    const shared = await check({ source, tests: { cases: Array.from({ length: 20 }, (_, i) => ({ ...wide, name: `wide ${i}` })) } });
    expect(shared.status).toBe(200);
    expect(shared.body.tests).toMatchObject({ passed: 20, failed: 0 });
    expect(shared.body.tests!.cases[0]!.actual).toEqual({ error: 'PL4006', message: 'PL4006 result is larger than 838860 bytes (maxResultBytes)' });
  });

  it('reports a failing case as a deploy refuses it, and ok false on a module without errors', async () => {
    const cases = [...PASSING, { name: 'a rule that is not there', rule: 'quota', context: {}, expect: 1 }];
    const source = EN.replace('amount times 2', 'amount times 3');
    const answer = await check({ source, tests: { cases } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, module: 'acme.checked', diagnostics: [] });
    expect(answer.body.tests).toMatchObject({ passed: 1, failed: 2 });
    const refused = await failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source, tests: { cases } }));
    expect(refused.status).toBe(422);
    const failed = answer.body.tests!.cases.filter((c) => !c.passed).map(({ passed: _passed, ...rest }) => rest);
    expect(failed).toEqual(refused.body.failures);
  });
});

describe('showIn', () => {
  it('prints the module in the locale asked for, as `policy fmt --locale` does', async () => {
    for (const [source, target] of [
      [EN, 'de-DE'],
      [DE, 'zh-CN'],
      [ZH, 'en-US'],
    ] as const) {
      const answer = await check({ source, showIn: target });
      const printed = await cli(['fmt', '--locale', target], source);
      expect(printed.code).toBe(0);
      expect(answer.body.formatted).toEqual({ locale: target, source: printed.out });
    }
  });
});

describe('what a check refuses', () => {
  it.each([
    ['a locale the language does not have', { source: EN, locale: 'fr-FR' }, '`locale` must be one of en-US, zh-CN, de-DE'],
    ['a showIn the language does not have', { source: EN, showIn: 'de' }, '`showIn` must be one of en-US, zh-CN, de-DE'],
    ['a source that is not a string', { source: 42 }, '`source` must be a non-empty string'],
    ['no source', { locale: 'en-US' }, '`source` is required'],
    ['an empty source', { source: '' }, '`source` must be a non-empty string'],
    ['an unknown field', { source: EN, rollout: { mode: 'active' } }, 'unknown field `rollout`'],
    ['tests without cases', { source: EN, tests: { cases: [] } }, '`tests` must be'],
    ['a body that is no object', [EN], 'must be a JSON object'],
  ])('refuses %s with 400 in the error envelope', async (_label, body, message) => {
    const refused = await failure(check(body));
    expect([refused.status, refused.code, refused.body.result]).toEqual([400, 'ERR_POLICY_REQUEST_INVALID', null]);
    expect(String(refused.body.error)).toContain(message);
  });

  it('refuses a VIEWER with 403', async () => {
    const refused = await failure(check({ source: EN }, h.tenants.a, 'VIEWER'));
    expect([refused.status, refused.code]).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
  });

  it('refuses a body over the limit with 413, as a deploy', async () => {
    const source = `${EN}#${'x'.repeat(1024 * 1024)}\n`;
    const refused = await failure(check({ source }));
    expect([refused.status, refused.code]).toEqual([413, 'ERR_REQUEST_BODY_TOO_LARGE']);
  });

  it.each([
    ['larger than the language reads', `${EN}${`# ${'padding '.repeat(12)}\n`.repeat(900)}`],
    ['nested deeper than the language reads', `${EN}\nRule deep produce Int:\n  Return ${'('.repeat(5000)}1${')'.repeat(5000)}.\n`],
  ])('answers a source %s with the diagnostic a deploy refuses it with', async (_label, source) => {
    const answer = await check({ source });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, module: null });
    const refused = await failure(h.signed(h.tenants.a, 'ADMIN').request('POST', '/api/v1/policies', { source }));
    expect([refused.status, refused.code]).toEqual([400, 'ERR_POLICY_COMPILE']);
    const deployed = refused.body.diagnostics as Array<{ code: string; message: string }>;
    expect(answer.body.diagnostics.map((d) => [d.code, d.message])).toEqual(deployed.map((d) => [d.code, d.message]));
    expect(answer.body.diagnostics[0]!.code).toMatch(/^PL400[12]$/);
  });
});

describe('nothing stored', () => {
  it('leaves the registry and the audit chain of every tenant as they were', async () => {
    const source = EN.replace('acme.checked', 'acme.private');
    const listed = async (tenant: TenantInfo) =>
      (await h.signed(tenant, 'VIEWER').request<{ totalElements: number; content: unknown[] }>('GET', '/api/v1/policies?size=100')).body;
    const before = { a: await listed(h.tenants.a), b: await listed(h.tenants.b), deploys: (await h.auditOfType(h.tenants.a, 'POLICY_DEPLOYED')).length };
    const answer = await check({ source, tests: { cases: [{ name: 'one', rule: 'quote', context: { amount: 1 }, expectFields: { price: 2 } }] }, showIn: 'zh-CN' });
    expect(answer.body).toMatchObject({ ok: true, module: 'acme.private' });
    expect(await listed(h.tenants.a)).toEqual(before.a);
    expect(await listed(h.tenants.b)).toEqual(before.b);
    for (const tenant of [h.tenants.a, h.tenants.b]) {
      expect((await failure(h.signed(tenant, 'VIEWER').request('GET', '/api/v1/policies/acme.private/versions'))).status).toBe(404);
      const evaluated = await failure(h.signed(tenant, 'MEMBER').request('POST', '/api/v1/policies/evaluate', { policyModule: 'acme.private', policyFunction: 'quote', context: { amount: 1 } }));
      expect(evaluated.status).toBe(404);
    }
    expect(await h.auditOfType(h.tenants.a, 'POLICY_DEPLOYED')).toHaveLength(before.deploys);
    expect(await h.auditOfType(h.tenants.a, 'SOURCE_EVALUATED')).toHaveLength(0);
    expect(await h.auditOfType(h.tenants.b, 'SOURCE_EVALUATED')).toHaveLength(0);
  });
});
