import { describe, expect, it } from 'vitest';
import type { CompiledProgram, TraceEntry } from '../../api-types.js';
import { compile, evaluate } from '../../index.js';

const source = [
  'Module lending.demo.',
  'Define Applicant has age as Int, creditScore as Int, tier as Tier.',
  'Define Tier as one of Prime, Standard, Subprime.',
  'Rule baseRate given score as Int, produce Int:',
  '  If score is at least 740:',
  '    Return 425.',
  '  Otherwise if score is at least 670:',
  '    Return 550.',
  '  Otherwise:',
  '    Return 675.',
  'Rule rate given applicant as Applicant, produce Int:',
  '  If applicant.age is less than 18:',
  '    Fail with "applicant under " + text(18).',
  '  Let rate be baseRate(applicant.creditScore).',
  '  Match applicant.tier:',
  '    When Prime, Standard:',
  '      Let rate be rate minus 50.',
  '    When Subprime:',
  '      Let rate be rate plus 100.',
  '  Return rate.',
].join('\n');

function compiled(): CompiledProgram {
  const result = compile(source, 'en-US');
  if (!result.program) throw new Error(JSON.stringify(result.diagnostics));
  return result.program;
}

/** Entries without spans, plus the source text each span covers (which must equal `text`). */
function readable(trace: TraceEntry[] | undefined) {
  return (trace ?? []).map(({ span, ...rest }) => {
    expect(source.slice(span.start, span.end)).toBe(rest.text);
    return rest;
  });
}

describe('decision trace', () => {
  it('is absent unless asked for', () => {
    const result = evaluate(compiled(), 'rate', [{ age: 30, creditScore: 700, tier: 'Prime' }]);
    expect(result).toEqual({ ok: true, value: 500 });
    expect('trace' in result).toBe(false);
  });

  it('records conditions, calls, matches and returns in evaluation order', () => {
    const result = evaluate(compiled(), 'rate', [{ age: 30, creditScore: 700, tier: 'Standard' }], { trace: true });
    expect(result.ok).toBe(true);
    expect(readable(result.trace)).toEqual([
      { kind: 'if', rule: 'rate', text: 'applicant.age is less than 18', value: false, branch: 'none' },
      { kind: 'call', rule: 'rate', text: 'baseRate(applicant.creditScore)', value: 550 },
      { kind: 'if', rule: 'baseRate', text: 'score is at least 740', value: false },
      { kind: 'if', rule: 'baseRate', text: 'score is at least 670', value: true, branch: 'otherwise if #1' },
      { kind: 'return', rule: 'baseRate', text: '550', value: 550 },
      { kind: 'match', rule: 'rate', text: 'applicant.tier', value: 'Standard', branch: 'Prime, Standard' },
      { kind: 'return', rule: 'rate', text: 'rate', value: 500 },
    ]);
  });

  it('names the then branch, the otherwise branch and an unmatched value', () => {
    const program = compiled();
    const low = evaluate(program, 'baseRate', [600], { trace: true });
    expect(readable(low.trace).at(-2)).toEqual({ kind: 'if', rule: 'baseRate', text: 'score is at least 670', value: false, branch: 'otherwise' });
    const high = evaluate(program, 'baseRate', [800], { trace: true });
    expect(readable(high.trace)[0]).toEqual({ kind: 'if', rule: 'baseRate', text: 'score is at least 740', value: true, branch: 'then' });
  });

  it('ends with the failure when the rule fails, and comes back with the diagnostics', () => {
    const result = evaluate(compiled(), 'rate', [{ age: 12, creditScore: 700, tier: 'Prime' }], { trace: true });
    expect(result.ok).toBe(false);
    expect(readable(result.trace)).toEqual([
      { kind: 'if', rule: 'rate', text: 'applicant.age is less than 18', value: true, branch: 'then' },
      { kind: 'fail', rule: 'rate', text: '"applicant under " + text(18)', value: 'applicant under 18' },
    ]);
  });

  it('records a Match that no When names as `none`', () => {
    const lines = ['Module m.', 'Rule r given n as Int, produce Int:', '  Match n:', '    When 1:', '      Return 1.', '  Return 0.'].join('\n');
    const program = compile(lines, 'en-US').program!;
    const result = evaluate(program, 'r', [5], { trace: true });
    expect(result.trace?.[0]).toMatchObject({ kind: 'match', text: 'n', value: 5, branch: 'none' });
  });

  it('gives the same results as untraced evaluation, in either order, and starts afresh each time', () => {
    const program = compiled();
    const contexts = [
      { age: 30, creditScore: 800, tier: 'Subprime' },
      { age: 30, creditScore: 600, tier: 'Prime' },
      { age: 10, creditScore: 600, tier: 'Prime' },
    ];
    for (const context of contexts) {
      const plain = evaluate(program, 'rate', [context]);
      const traced = evaluate(program, 'rate', [context], { trace: true });
      const { trace, ...rest } = traced;
      expect(rest).toEqual(plain);
      expect(trace!.length).toBeGreaterThan(0);
      expect(evaluate(program, 'rate', [context], { trace: true }).trace).toEqual(trace);
    }
  });

  it('is empty, not missing, when the input is rejected', () => {
    const result = evaluate(compiled(), 'rate', [{ age: 'x' }], { trace: true });
    expect(result).toMatchObject({ ok: false, trace: [] });
  });
});
