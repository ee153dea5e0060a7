import { describe, expect, it } from 'vitest';
import type { CompiledProgram, TierUpFailure } from '../../api-types.js';
import { check } from '../../checker/index.js';
import { evaluate } from '../../index.js';
import { parse } from '../../parser/index.js';
import { compileProgram } from '../compile-program.js';

/** Evaluation 1 runs the closures, evaluation 2 tiers up, later ones run generated code. */
function programOf(source: string, onTierUpFailure: (failure: TierUpFailure) => void): CompiledProgram {
  const parsed = parse(source, 'en-US');
  expect(parsed.diagnostics).toEqual([]);
  const checked = check(parsed.module!);
  expect(checked.diagnostics).toEqual([]);
  return compileProgram(checked.checked!, { source, locale: 'en-US', tierUpAfter: 2, onTierUpFailure });
}

/** A rule taking `params` records of `fields` Int fields each and adding one field of each. */
function wideRule(params: number, fields: number) {
  const fieldList = Array.from({ length: fields }, (_, i) => `f${i} as Int`).join(', ');
  const paramList = Array.from({ length: params }, (_, i) => `p${i} as Big`).join(', ');
  const sum = Array.from({ length: params }, (_, i) => `p${i}.f${(i * 7) % fields}`).join(' + ');
  const source = ['Module wide.', `Define Big has ${fieldList}.`, `Rule r given ${paramList}, produce Int:`, `  Return ${sum}.`, ''].join('\n');
  const record = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`f${i}`, i]));
  const context = Object.fromEntries(Array.from({ length: params }, (_, i) => [`p${i}`, record]));
  const expected = Array.from({ length: params }, (_, i) => (i * 7) % fields).reduce((a, b) => a + b, 0);
  return { source, context, expected };
}

describe('tier-up', () => {
  for (const params of [21, 24]) {
    it(`keeps the closure form's answers for a rule with ${params} record parameters of 3,000 fields`, () => {
      const { source, context, expected } = wideRule(params, 3000);
      const failures: TierUpFailure[] = [];
      const program = programOf(source, (failure) => failures.push(failure));
      const answers = [1, 2, 3, 4].map(() => evaluate(program, 'r', context));
      expect(answers).toEqual([1, 2, 3, 4].map(() => ({ ok: true, value: expected })));
      const invalid = { ...context, p0: { ...context.p0, f1: 'x' } };
      const rejected = [1, 2].map(() => evaluate(program, 'r', invalid));
      expect(rejected.map((r) => (r.ok ? 'ok' : r.diagnostics.map((d) => d.code)))).toEqual([['PL5004'], ['PL5004']]);
      expect(failures).toEqual([]);
    });
  }
});
