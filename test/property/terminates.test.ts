import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../../src/language/api-types.js';
import { compile, evaluate, format } from '../../src/language/index.js';
import { chooserFrom, LOCALES } from './chooser.js';
import { generateModule } from './generate-module.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
// endOnFailure: a failure is reported at once with its seed and path for replay; shrinking
// generated modules can take many minutes and would only delay the same report.

/** What an evaluation came to, comparable across locales: the value, or the codes of the diagnostics. */
function outcomeOf(result: EvaluationResult): unknown {
  return result.ok ? { value: result.value } : { codes: result.diagnostics.map((d) => d.code) };
}

// Generous: the work grows with PROPERTY_RUNS, and CI shares two cores with other suites.
describe('evaluation of generated modules', { timeout: 600_000 }, () => {
  it('always terminates within the step budget with a value or a runtime diagnostic', () => {
    fc.assert(
      fc.property(fc.gen(), fc.oneof(fc.constant(undefined), fc.integer({ min: 1, max: 5_000 })), (g, stepBudget) => {
        const generated = generateModule(chooserFrom(g));
        const compiled = compile(format(generated.module, 'en-US'), 'en-US');
        expect(compiled.program).not.toBeNull();
        for (const rule of generated.rules) {
          const context = generated.context(chooserFrom(g), rule);
          const result = evaluate(compiled.program!, rule.name, context, stepBudget === undefined ? {} : { stepBudget });
          if (result.ok) {
            // The value is JSON: its text survives a round trip unchanged. (Compared as text: a
            // negative zero is a valid result that JSON writes as 0, as every client receives it.)
            const text = JSON.stringify(result.value);
            expect(JSON.stringify(JSON.parse(text))).toBe(text);
            expect(isPlainJson(result.value)).toBe(true);
          } else {
            expect(result.diagnostics.length).toBeGreaterThan(0);
            for (const d of result.diagnostics) expect(d.code).toMatch(/^PL(3\d{3}|4003)$/);
          }
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('is deterministic and means the same in every locale', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const generated = generateModule(chooserFrom(g));
        const programs = LOCALES.map((locale) => compile(format(generated.module, locale), locale).program);
        for (const program of programs) expect(program).not.toBeNull();
        for (const rule of generated.rules) {
          const context = generated.context(chooserFrom(g), rule);
          const outcomes = programs.map((p) => outcomeOf(evaluate(p!, rule.name, context, { stepBudget: 50_000 })));
          const again = outcomeOf(evaluate(programs[0]!, rule.name, context, { stepBudget: 50_000 }));
          expect(again).toEqual(outcomes[0]);
          expect(outcomes[1]).toEqual(outcomes[0]);
          expect(outcomes[2]).toEqual(outcomes[0]);
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('never exceeds a budget that a smaller budget already sufficed for', () => {
    fc.assert(
      fc.property(fc.gen(), fc.integer({ min: 1, max: 2_000 }), (g, budget) => {
        const generated = generateModule(chooserFrom(g));
        const program = compile(format(generated.module, 'en-US'), 'en-US').program;
        expect(program).not.toBeNull();
        for (const rule of generated.rules) {
          const context = generated.context(chooserFrom(g), rule);
          const small = evaluate(program!, rule.name, context, { stepBudget: budget });
          if (small.ok || small.diagnostics.every((d) => d.code !== 'PL4003')) {
            const large = evaluate(program!, rule.name, context, { stepBudget: budget * 10 });
            expect(outcomeOf(large)).toEqual(outcomeOf(small));
          }
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});

/** Finite numbers, strings, booleans, arrays and plain objects only (NaN would become null as text). */
function isPlainJson(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (Array.isArray(value)) return value.every(isPlainJson);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every(isPlainJson);
  }
  return false;
}
