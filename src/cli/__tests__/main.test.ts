import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WORKFLOW_EXAMPLE_ZH } from '../../language/parser/__tests__/fixtures/workflow-example.js';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripPositions } from '../../language/ast/index.js';
import { detectLocale, parse } from '../../language/index.js';
import { displayWidth } from '../display-width.js';
import { main } from '../main.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

async function run(...argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const LOAN_EN = `# Loan pricing.
Module lending.demo.

Define Applicant has age as Int, creditScore as Int.
Define Decision has approved as Bool, rateBps as Int.

Rule baseRate given score as Int, produce Int:
  If score is at least 740:
    Return 425.
  Otherwise:
    Return 600.

Rule evaluate given applicant as Applicant, produce Decision:
  If applicant.age is less than 18:
    Return Decision with approved set to false, rateBps set to 0.
  Return Decision with approved set to true, rateBps set to baseRate(applicant.creditScore).
`;

const LOAN_DE = `Modul kredit.demo.

Regel zins gegeben punkte als Ganzzahl, liefert Ganzzahl:
  Wenn punkte ist mindestens 740:
    Liefere 425.
  Liefere 600.
`;

const LOAN_ZH = `模块 贷款.示例。

规则 利率 给定 分数 为 整数，产出 整数：
  如果 分数 至少 740：
    返回 425。
  返回 信用 加上 1。
`;

const DIVIDE = `Module math.

Rule ratio given a as Int, b as Int, produce Float:
  Return a / b.
`;

const UNKNOWN_NAME = `Module demo.
Rule r given score as Int, produce Int:
  Return scor + 1.
`;

let dir: string;
const path = (name: string): string => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'policy-cli-'));
  writeFileSync(path('loan.policy'), LOAN_EN);
  writeFileSync(path('kredit.policy'), LOAN_DE);
  writeFileSync(path('zh.policy'), LOAN_ZH);
  writeFileSync(path('divide.policy'), DIVIDE);
  writeFileSync(path('workflow.zh.policy'), WORKFLOW_EXAMPLE_ZH);
  writeFileSync(path('unknown.policy'), UNKNOWN_NAME);
  writeFileSync(path('headerless.policy'), 'Rule r produce Int:\n  Return 1.\n');
  writeFileSync(path('latin1.policy'), Buffer.from([0x4d, 0x6f, 0x64, 0x75, 0x6c, 0x65, 0x20, 0xe9, 0x2e, 0x0a]));
  writeFileSync(path('adult.json'), JSON.stringify({ applicant: { age: 30, creditScore: 760 } }));
  writeFileSync(path('minor.json'), JSON.stringify([{ age: 12, creditScore: 800 }]));
  writeFileSync(path('missing-field.json'), JSON.stringify({ applicant: { age: 30 } }));
  writeFileSync(path('zero.json'), JSON.stringify({ a: 1, b: 0 }));
  writeFileSync(path('broken.json'), '{"a": 1,');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('policy check', () => {
  it('reports a valid module and its rules', async () => {
    const r = await run('check', path('loan.policy'));
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('module lending.demo');
    expect(r.out).toContain('2 rules: baseRate, evaluate');
  });

  it('names the workflows of a module, in any locale', async () => {
    const r = await run('check', '--locale', 'zh-CN', path('workflow.zh.policy'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('3 rules: identityVerified, creditAcceptable, releaseCreditHold; 1 workflow: originateLoan');
  });

  it('prints a diagnostic with the source line and a caret under the span, and exits 1', async () => {
    const r = await run('check', path('unknown.policy'));
    expect(r.code).toBe(1);
    const lines = r.err.split('\n');
    expect(lines[0]).toMatch(/^error\[PL2001\]: .*`scor`/);
    expect(lines[0]).toContain('did you mean `score`');
    expect(lines[1]).toBe(` --> ${path('unknown.policy')}:3:10`);
    expect(lines[3]).toBe('3 |   Return scor + 1.');
    expect(lines[4]).toBe('  |          ^^^^');
  });

  it('lines the caret up under CJK text', async () => {
    const r = await run('check', path('zh.policy'), '--locale', 'zh-CN');
    expect(r.code).toBe(1);
    const lines = r.err.split('\n');
    const sourceLine = lines.findIndex((l) => l.includes('返回 信用 加上 1'));
    expect(lines[0]).toContain('PL2001');
    const caretLine = lines[sourceLine + 1]!;
    const prefix = lines[sourceLine]!.slice(0, lines[sourceLine]!.indexOf('信用'));
    expect(caretLine.indexOf('^')).toBe(displayWidth(prefix));
    expect(caretLine.slice(caretLine.indexOf('^'))).toBe('^^^^');
  });

  it('detects the locale from the module header as fmt does; --locale overrides it', async () => {
    const detected = await run('check', path('kredit.policy'));
    expect(detected.code).toBe(0);
    expect(detected.out).toContain('module kredit.demo (de-DE)');
    const wrong = await run('check', path('kredit.policy'), '--locale', 'en');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('PL6003');
  });

  it('reports an unsupported locale as PL6001', async () => {
    const r = await run('check', path('loan.policy'), '--locale', 'fr-FR');
    expect(r.code).toBe(1);
    expect(r.err).toContain('PL6001');
  });

  it('refuses a missing file and a file that is not UTF-8 with exit 2', async () => {
    const missing = await run('check', path('nope.policy'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no such file');
    const latin1 = await run('check', path('latin1.policy'));
    expect(latin1.code).toBe(2);
    expect(latin1.err).toContain('not valid UTF-8');
  });
});

describe('policy check --json', () => {
  const report = (r: Run) => JSON.parse(r.out) as Record<string, unknown>;

  it('prints the rules with their parameter and return types (en-US), exit 0', async () => {
    const r = await run('check', '--json', path('loan.policy'));
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(report(r)).toEqual({
      ok: true,
      locale: 'en-US',
      module: 'lending.demo',
      functions: [
        { name: 'baseRate', parameters: [{ name: 'score', type: 'Int' }], returns: 'Int' },
        { name: 'evaluate', parameters: [{ name: 'applicant', type: 'Applicant' }], returns: 'Decision' },
      ],
      workflows: [],
      diagnostics: [],
    });
  });

  it('reports the locale detected from a de-DE header, with types written in en-US', async () => {
    const r = await run('check', '--json', path('kredit.policy'));
    expect(r.code).toBe(0);
    expect(report(r)).toMatchObject({
      ok: true,
      locale: 'de-DE',
      module: 'kredit.demo',
      functions: [{ name: 'zins', parameters: [{ name: 'punkte', type: 'Int' }], returns: 'Int' }],
      diagnostics: [],
    });
  });

  it('names the workflows of a zh-CN module with their parameters', async () => {
    const r = await run('check', '--json', path('workflow.zh.policy'));
    expect(r.code).toBe(0);
    const parsed = report(r);
    expect(parsed).toMatchObject({ ok: true, locale: 'zh-CN' });
    expect((parsed.workflows as { name: string }[]).map((w) => w.name)).toEqual(['originateLoan']);
    expect((parsed.functions as { name: string }[]).map((f) => f.name)).toEqual(['identityVerified', 'creditAcceptable', 'releaseCreditHold']);
  });

  it('numbers a diagnostic\'s span as the text output does, in any locale, and exits 1', async () => {
    for (const [file, token] of [
      ['unknown.policy', 'scor'],
      ['zh.policy', '信用'],
    ] as const) {
      const text = await run('check', path(file));
      const json = await run('check', '--json', path(file));
      expect(json.code).toBe(1);
      expect(json.err).toBe('');
      const parsed = report(json);
      expect(parsed).toMatchObject({ ok: false, module: null, functions: [], workflows: [] });
      const [first] = parsed.diagnostics as { code: string; severity: string; span: { start: { line: number; column: number; offset: number }; end: { line: number; column: number; offset: number } } }[];
      expect(first).toMatchObject({ code: 'PL2001', severity: 'error' });
      // The text output's `--> file:line:column` is the span's start.
      expect(text.err).toContain(`--> ${path(file)}:${first!.span.start.line}:${first!.span.start.column}\n`);
      const source = readFileSync(path(file), 'utf8');
      expect(source.slice(first!.span.start.offset, first!.span.end.offset)).toBe(token);
      expect(first!.span.end).toEqual({ line: first!.span.start.line, column: first!.span.start.column + token.length, offset: first!.span.start.offset + token.length });
    }
  });

  it('gives a problem with no place in the source a null span: an unsupported locale, as asked', async () => {
    const r = await run('check', '--json', path('loan.policy'), '--locale', 'fr-FR');
    expect(r.code).toBe(1);
    expect(report(r)).toMatchObject({ ok: false, locale: 'fr-FR', module: null, diagnostics: [{ code: 'PL6001', severity: 'error', span: null }] });
  });
});

describe('policy eval', () => {
  it('prints the result as JSON and exits 0', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('adult.json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ approved: true, rateBps: 425 });
    expect(r.err).toBe('');
  });

  it('accepts a positional context array', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('minor.json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ approved: false, rateBps: 0 });
  });

  it('evaluates a de-DE module with --locale de-DE', async () => {
    writeFileSync(path('punkte.json'), JSON.stringify({ punkte: 700 }));
    const r = await run('eval', path('kredit.policy'), '--locale', 'de-DE', '--function', 'zins', '--context', path('punkte.json'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toBe(600);
  });

  it('prints an evaluation error with a caret and exits 1', async () => {
    const r = await run('eval', path('divide.policy'), '--function', 'ratio', '--context', path('zero.json'));
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    const lines = r.err.split('\n');
    expect(lines[0]).toMatch(/^error\[PL3001\]/);
    expect(lines[3]).toBe('4 |   Return a / b.');
    expect(lines[4]).toBe('  |          ^^^^^');
  });

  it('prints an input error without a source line', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('missing-field.json'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error\[PL5002\]: .*applicant\.creditScore/);
    expect(r.err).not.toContain(' | ');
  });

  it('with --json prints the result envelope and exits 0 on success', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('adult.json'), '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ result: { approved: true, rateBps: 425 }, error: null, diagnostics: [] });
  });

  it('with --json prints the error string and diagnostics and exits 1 on an evaluation error', async () => {
    const r = await run('eval', path('divide.policy'), '--function', 'ratio', '--context', path('zero.json'), '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { result: unknown; error: string; diagnostics: { code: string; span: unknown }[] };
    expect(report.result).toBeNull();
    expect(report.error).toMatch(/^PL3001 .+ at 4:10$/);
    expect(report.diagnostics.map((d) => d.code)).toEqual(['PL3001']);
    expect(r.err).toBe('');
  });

  it('with --json reports compile errors and input errors (the latter without a position)', async () => {
    const compileError = await run('eval', path('unknown.policy'), '--function', 'r', '--json');
    expect(compileError.code).toBe(1);
    expect(JSON.parse(compileError.out).error).toMatch(/^PL2001 .+ at 3:10$/);

    const inputError = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('missing-field.json'), '--json');
    expect(inputError.code).toBe(1);
    const report = JSON.parse(inputError.out) as { error: string; diagnostics: { code: string; span: unknown }[] };
    expect(report.error).toMatch(/^PL5002 /);
    expect(report.error).not.toMatch(/ at \d+:\d+$/);
    expect(report.diagnostics[0]!.span).toBeNull();
  });

  it('with --json reports an unknown function as PL6002', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluat', '--context', path('adult.json'), '--json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).error).toMatch(/^PL6002 .*did you mean `evaluate`/);
  });

  it('with --trace prints the decision trace on stderr and keeps stdout pure JSON', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('adult.json'), '--trace');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ approved: true, rateBps: 425 });
    expect(r.err).toMatch(/^trace \(\d+ steps?\):/);
    expect(r.err).toContain('applicant.age is less than 18');
    expect(r.err).toContain('score is at least 740');
  });

  it('with --trace --json puts the trace in the envelope', async () => {
    const r = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('adult.json'), '--trace', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { trace: { kind: string; text: string; value: unknown }[] };
    const first = report.trace.find((t) => t.kind === 'if');
    expect(first).toMatchObject({ text: 'applicant.age is less than 18', value: false });
  });

  it('needs --function and a readable JSON context (exit 2)', async () => {
    const noFunction = await run('eval', path('loan.policy'));
    expect(noFunction.code).toBe(2);
    expect(noFunction.err).toContain('--function');

    const broken = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('broken.json'));
    expect(broken.code).toBe(2);
    expect(broken.err).toContain('not valid JSON');

    const brokenJson = await run('eval', path('loan.policy'), '--function', 'evaluate', '--context', path('broken.json'), '--json');
    expect(brokenJson.code).toBe(2);
    expect(JSON.parse(brokenJson.out)).toMatchObject({ result: null, diagnostics: [] });
  });
});

describe('policy fmt', () => {
  it('--check lists files not in canonical layout (exit 1), --write rewrites them, then --check passes', async () => {
    const canonical = (await run('fmt', path('loan.policy'))).out;
    writeFileSync(path('messy.policy'), `${canonical}\n\n\n`);
    writeFileSync(path('tidy.policy'), canonical);
    const checked = await run('fmt', '--check', path('messy.policy'), path('tidy.policy'));
    expect(checked.code).toBe(1);
    expect(checked.out).toBe(`not canonical: ${path('messy.policy')}\n`);
    expect(readFileSync(path('messy.policy'), 'utf8')).toBe(`${canonical}\n\n\n`);
    const written = await run('fmt', '--write', path('messy.policy'), path('tidy.policy'));
    expect(written.code).toBe(0);
    expect(written.out).toBe(`rewrote ${path('messy.policy')}\n`);
    expect(readFileSync(path('messy.policy'), 'utf8')).toBe(canonical);
    expect((await run('fmt', '--check', path('messy.policy'), path('tidy.policy'))).code).toBe(0);
  });

  it('refuses --check with --write, and several files without either (exit 2)', async () => {
    expect((await run('fmt', '--check', '--write', path('loan.policy'))).code).toBe(2);
    const several = await run('fmt', path('loan.policy'), path('kredit.policy'));
    expect(several.code).toBe(2);
    expect(several.err).toContain('--check or --write');
  });

  it('prints the module in its own locale by default, detected from the header', async () => {
    const r = await run('fmt', path('loan.policy'));
    expect(r.code).toBe(0);
    expect(detectLocale(r.out)).toBe('en-US');
    const original = parse(LOAN_EN, 'en-US');
    const printed = parse(r.out, 'en-US');
    expect(printed.diagnostics).toEqual([]);
    expect(stripPositions(printed.module)).toEqual(stripPositions(original.module));
  });

  it('translates to another locale with --locale, keeping the same tree', async () => {
    for (const target of ['zh-CN', 'de-DE'] as const) {
      const r = await run('fmt', path('loan.policy'), '--locale', target);
      expect(r.code).toBe(0);
      expect(detectLocale(r.out)).toBe(target);
      const printed = parse(r.out, target);
      expect(printed.diagnostics).toEqual([]);
      expect(stripPositions(printed.module)).toEqual(stripPositions(parse(LOAN_EN, 'en-US').module));
    }
  });

  it('translates from de-DE to en-US', async () => {
    const r = await run('fmt', path('kredit.policy'), '--locale', 'en');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Module kredit.demo.');
    expect(r.out).toContain('is at least 740');
  });

  it('honours --from, and reports a mismatch with the header as diagnostics', async () => {
    const ok = await run('fmt', path('kredit.policy'), '--from', 'de-DE', '--locale', 'zh-CN');
    expect(ok.code).toBe(0);
    expect(detectLocale(ok.out)).toBe('zh-CN');
    const mismatch = await run('fmt', path('kredit.policy'), '--from', 'en-US');
    expect(mismatch.code).toBe(1);
    expect(mismatch.err).toContain('PL6003');
  });

  it('needs --from when the header names no locale', async () => {
    const r = await run('fmt', path('headerless.policy'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('pass --from');
  });

  it('reports an unsupported target locale as PL6001', async () => {
    const r = await run('fmt', path('loan.policy'), '--locale', 'fr');
    expect(r.code).toBe(1);
    expect(r.err).toContain('error[PL6001]');
    expect(r.err).toContain('en-US, zh-CN, de-DE');
  });

  it('prints syntax errors instead of a translation', async () => {
    writeFileSync(path('syntax.policy'), 'Module demo.\nRule r produce Int:\n  Return (1 + ).\n');
    const r = await run('fmt', path('syntax.policy'), '--locale', 'de');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('error[PL1006]');
  });
});

describe('policy test', () => {
  const DOUBLE = 'Module t.double.\n\nDefine Pair has a as Int, b as Int.\n\nRule double given x as Int, produce Int:\n  If x is less than 0:\n    Fail with "negative".\n  Return x times 2.\n\nRule pair given x as Int, produce Pair:\n  Return Pair with a set to x, b set to x plus 1.\n';
  const suite = (name: string, cases: unknown[]): string => {
    const at = join(dir, 'suite', name);
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, JSON.stringify({ cases }));
    return at;
  };

  beforeAll(() => {
    mkdirSync(join(dir, 'suite'), { recursive: true });
    writeFileSync(join(dir, 'suite', 'double.policy'), DOUBLE);
    writeFileSync(join(dir, 'suite', 'broken.policy'), 'Module t.broken.\nRule r produce Int:\n  Return "x".\n');
  });

  it('runs every case of a test file against the module beside it: whole result, some fields, an expected error', async () => {
    const file = suite('double.tests.json', [
      { name: 'doubles', rule: 'double', context: { x: 21 }, expect: 42 },
      { name: 'positional', rule: 'double', context: [2], expect: 4 },
      { name: 'a field of a record', rule: 'pair', context: [1], expectFields: { b: 2 } },
      { name: 'refuses negatives', why: 'the Fail with branch', rule: 'double', context: [-1], expectError: 'PL3004' },
    ]);
    const r = await run('test', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`ok   ${join(dir, 'suite', 'double.policy')}: 4/4 passed`);
    expect(r.out).toContain('PASS: 4/4 cases passed in 1 of 1 files');
  });

  it('reports each failing case with what was expected and what came, and exits 1', async () => {
    const file = suite('double.tests.json', [
      { name: 'wrong', rule: 'double', context: [2], expect: 5 },
      { name: 'no error', rule: 'double', context: [2], expectError: 'PL3004' },
      { name: 'wrong field', rule: 'pair', context: [1], expectFields: { a: 9 } },
      { name: 'right', rule: 'double', context: [3], expect: 6 },
    ]);
    const r = await run('test', file);
    expect(r.code).toBe(1);
    expect(r.err).toContain('FAIL');
    expect(r.err).toContain('wrong: expected 5, got 4');
    expect(r.err).toContain('no error: expected error PL3004, got 4');
    expect(r.err).toContain('wrong field: field `a`: expected 9, got 1');
    expect(r.out).toContain('FAIL: 1/4 cases passed');
  });

  it('finds test files in directories; a malformed test file or a module that does not compile fails the run', async () => {
    suite('double.tests.json', [{ name: 'doubles', rule: 'double', context: [1], expect: 2 }]);
    suite('broken.tests.json', [{ name: 'never runs', rule: 'r', expect: 1 }]);
    const r = await run('test', join(dir, 'suite'));
    expect(r.code).toBe(1);
    expect(r.err).toContain(`BROKEN ${join(dir, 'suite', 'broken.policy')}: does not compile`);
    suite('broken.tests.json', [{ name: 'two expectations', rule: 'r', expect: 1, expectError: 'PL3004' }]);
    const malformed = await run('test', join(dir, 'suite', 'broken.tests.json'));
    expect(malformed.code).toBe(1);
    expect(malformed.err).toContain('exactly one of `expect`, `expectFields` and `expectError`');
  });

  it('exits 2 when a path holds no test files', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    const r = await run('test', empty);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no test files');
  });
});

describe('policy usage', () => {
  it('prints help for --help and exits 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('check');
    expect(r.out).toContain('eval');
    expect(r.out).toContain('fmt');
  });

  it('prints the version of the package for --version and -V, exits 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await run(flag);
      expect(r.code).toBe(0);
      expect(r.out.trim()).toBe(version);
    }
  });

  it('prints usage and exits 2 without arguments or with an unknown command', async () => {
    expect((await run()).code).toBe(2);
    const unknown = await run('lint', 'x.policy');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command');
  });
});
