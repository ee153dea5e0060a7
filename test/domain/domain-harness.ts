/**
 * Shared plumbing for the domain suites: compile a built-in policy from `policies/` through the
 * public language API and evaluate its rules with positional (array) contexts, the way the
 * GraphQL layer calls them.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

import type { CompiledProgram, JsonValue, Locale } from '../../src/language/api-types.js';
import type { Diagnostic } from '../../src/language/diagnostics/diagnostic.js';
import { compile, describeDiagnostic, evaluate } from '../../src/language/index.js';

export type Json = JsonValue;
export type JsonObject = { [key: string]: JsonValue };

export function policySource(moduleName: string): string {
  return readFileSync(new URL(`../../policies/${moduleName}.policy`, import.meta.url), 'utf8');
}

/** Compiles a built-in module, failing the suite with every diagnostic if it does not compile cleanly. */
export function compilePolicy(moduleName: string, locale: Locale): CompiledProgram {
  const { program, diagnostics } = compile(policySource(moduleName), locale);
  if (program === null || diagnostics.length > 0) {
    throw new Error(`${moduleName} does not compile cleanly:\n${diagnostics.map(describeDiagnostic).join('\n')}`);
  }
  return program;
}

/** Evaluates and returns the value; a failed evaluation fails the test with its diagnostics. */
export function run(program: CompiledProgram, functionName: string, args: JsonValue[]): JsonValue {
  const result = evaluate(program, functionName, args);
  if (!result.ok) {
    throw new Error(`${functionName} failed:\n${result.diagnostics.map(describeDiagnostic).join('\n')}`);
  }
  return result.value;
}

/** Evaluates expecting a `Fail with` stop, and returns its diagnostic. */
export function failure(program: CompiledProgram, functionName: string, args: JsonValue[]): Diagnostic {
  const result = evaluate(program, functionName, args);
  if (result.ok) throw new Error(`${functionName} succeeded with ${JSON.stringify(result.value)}; a failure was expected`);
  expect(result.diagnostics).toHaveLength(1);
  return result.diagnostics[0]!;
}

/** Asserts that the evaluation stopped with `Fail with` carrying exactly `message`. */
export function expectFailure(program: CompiledProgram, functionName: string, args: JsonValue[], message: string): void {
  const diagnostic = failure(program, functionName, args);
  expect(diagnostic.code).toBe('PL3004');
  expect(diagnostic.message).toBe(message);
}
