import { expect } from 'vitest';
import type { CompiledProgram, EvaluateOptions, EvaluationResult, JsonValue } from '../../api-types.js';
import { compile, evaluate } from '../../index.js';

export function program(lines: string[], locale = 'en-US', stepBudget?: number): { program: CompiledProgram; source: string } {
  const source = lines.join('\n') + '\n';
  const result = compile(source, locale, stepBudget === undefined ? undefined : { stepBudget });
  expect(result.diagnostics.filter((d) => d.severity === 'error'), 'test source must compile').toEqual([]);
  return { program: result.program!, source };
}

export function run(lines: string[], fn: string, context: unknown, options?: EvaluateOptions): EvaluationResult {
  return evaluate(program(lines).program, fn, context, options);
}

export function value(lines: string[], fn: string, context: unknown): JsonValue {
  const result = run(lines, fn, context);
  if (!result.ok) throw new Error(`evaluation failed: ${JSON.stringify(result.diagnostics)}`);
  return result.value;
}

/** The single diagnostic of a failed evaluation, with the source text its span underlines. */
export function failure(lines: string[], fn: string, context: unknown, options?: EvaluateOptions) {
  const { program: compiled, source } = program(lines);
  const result = evaluate(compiled, fn, context, options);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  expect(result.diagnostics).toHaveLength(1);
  const d = result.diagnostics[0]!;
  return { ...d, text: d.span ? source.slice(d.span.start, d.span.end) : null };
}
