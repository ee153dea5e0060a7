/**
 * Runs one conformance case through the public API (compile, then evaluate) and explains any
 * difference from what the case expects. Diagnostics are compared by code, underlined text and
 * message fragments, never by offsets.
 */
import { isDeepStrictEqual } from 'node:util';
import { compile, evaluate, format, parse } from '../../src/language/index.js';
import type { Diagnostic } from '../../src/language/diagnostics/index.js';
import { canonicalLocale, type ExpectedDiagnostic, type LoadedCase } from './case-file.js';

export interface Verdict {
  pass: boolean;
  /** Why the case failed, with the diagnostics that were actually reported. */
  reason: string;
}

function underlined(source: string, d: Diagnostic): string | null {
  return d.span ? source.slice(d.span.start, d.span.end) : null;
}

function show(source: string, diagnostics: readonly Diagnostic[]): string {
  if (diagnostics.length === 0) return '  (none)';
  return diagnostics
    .map((d) => {
      const text = underlined(source, d);
      const at = d.span ? ` at ${d.span.line}:${d.span.column} underlining ${JSON.stringify(text)}` : '';
      return `  ${d.severity} ${d.code} ${d.message}${at}`;
    })
    .join('\n');
}

function matches(source: string, expected: ExpectedDiagnostic, actual: Diagnostic): boolean {
  if (actual.code !== expected.code) return false;
  if (expected.text !== undefined && underlined(source, actual) !== expected.text) return false;
  if (expected.messageIncludes !== undefined) {
    const all = `${actual.message}\n${actual.help ?? ''}`;
    if (!all.includes(expected.messageIncludes)) return false;
  }
  return true;
}

/**
 * Every expected diagnostic must be reported (each matched by a distinct one), and every error
 * reported must be expected: a single mistake should produce a single error, not a cascade.
 * Warnings the case does not name are allowed.
 */
function judgeDiagnostics(source: string, expected: ExpectedDiagnostic[], actual: Diagnostic[]): Verdict {
  const unused = [...actual];
  for (const e of expected) {
    const index = unused.findIndex((a) => matches(source, e, a));
    if (index < 0) {
      return { pass: false, reason: `expected ${JSON.stringify(e)} but got:\n${show(source, actual)}` };
    }
    unused.splice(index, 1);
  }
  const stray = unused.filter((a) => a.severity === 'error');
  if (stray.length > 0) {
    return { pass: false, reason: `unexpected errors besides the expected ones:\n${show(source, stray)}` };
  }
  return { pass: true, reason: '' };
}

/** True when `actual` equals `expected` including the order of object keys (records keep declaration order). */
function sameJson(actual: unknown, expected: unknown): boolean {
  if (!isDeepStrictEqual(actual, expected)) return false;
  if (Array.isArray(expected)) return (expected as unknown[]).every((e, i) => sameJson((actual as unknown[])[i], e));
  if (expected !== null && typeof expected === 'object') {
    const a = Object.keys(actual as object);
    const e = Object.keys(expected);
    if (a.join('\u0000') !== e.join('\u0000')) return false;
    return e.every((k) => sameJson((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]));
  }
  return true;
}

export function judgeCase(c: LoadedCase): Verdict {
  const source = c.text;
  const compiled = compile(source, c.locale);
  const compileErrors = compiled.diagnostics.filter((d) => d.severity === 'error');
  const wantsResult = 'result' in c.expect;

  if (compiled.program === null || compileErrors.length > 0) {
    if (wantsResult) {
      return { pass: false, reason: `expected a result but compilation failed:\n${show(source, compiled.diagnostics)}` };
    }
    if (compiled.program !== null) {
      return { pass: false, reason: 'compilation reported errors but still returned a program' };
    }
    return judgeDiagnostics(source, 'diagnostics' in c.expect ? c.expect.diagnostics : [], compiled.diagnostics);
  }

  if (c.function === undefined) {
    if (wantsResult) return { pass: false, reason: 'case expects a result but names no function' };
    return judgeDiagnostics(source, 'diagnostics' in c.expect ? c.expect.diagnostics : [], compiled.diagnostics);
  }

  const options = c.options ?? {};
  const outcome = evaluate(compiled.program, c.function, (c.context === undefined ? {} : c.context) as never, options);
  if ('result' in c.expect) {
    if (!outcome.ok) {
      return { pass: false, reason: `expected ${JSON.stringify(c.expect.result)} but evaluation failed:\n${show(source, outcome.diagnostics)}` };
    }
    if (!sameJson(outcome.value, c.expect.result)) {
      return { pass: false, reason: `expected ${JSON.stringify(c.expect.result)} but got ${JSON.stringify(outcome.value)}` };
    }
    return { pass: true, reason: '' };
  }
  const actual = [...compiled.diagnostics, ...(outcome.ok ? [] : outcome.diagnostics)];
  if (outcome.ok) {
    const verdict = judgeDiagnostics(source, c.expect.diagnostics, actual);
    if (verdict.pass) return verdict;
    return { pass: false, reason: `expected diagnostics but evaluation returned ${JSON.stringify(outcome.value)}; ${verdict.reason}` };
  }
  return judgeDiagnostics(source, c.expect.diagnostics, actual);
}

const LOCALES = ['en-US', 'zh-CN', 'de-DE'] as const;

/**
 * A case that evaluates to a result must give the same result when its module is formatted into
 * each locale and compiled again: the keywords change, the meaning never does (docs/language.md §8).
 */
export function judgeTranslations(c: LoadedCase): Verdict {
  if (!('result' in c.expect) || c.function === undefined) return { pass: true, reason: '' };
  const locale = canonicalLocale(c.locale);
  if (locale === null) return { pass: false, reason: `a case with a result needs a supported locale, not \`${c.locale}\`` };
  const parsed = parse(c.text, locale);
  if (parsed.module === null) return { pass: false, reason: `the source does not parse:\n${show(c.text, parsed.diagnostics)}` };
  const options = c.options ?? {};
  for (const target of LOCALES) {
    const translated = format(parsed.module, target);
    const compiled = compile(translated, target);
    if (compiled.program === null) {
      return { pass: false, reason: `formatted as ${target} it no longer compiles:\n${show(translated, compiled.diagnostics)}\n${translated}` };
    }
    const outcome = evaluate(compiled.program, c.function, (c.context === undefined ? {} : c.context) as never, options);
    if (!outcome.ok || !sameJson(outcome.value, c.expect.result)) {
      const got = outcome.ok ? JSON.stringify(outcome.value) : `\n${show(translated, outcome.diagnostics)}`;
      return { pass: false, reason: `formatted as ${target} it gives ${got}\n${translated}` };
    }
  }
  return { pass: true, reason: '' };
}
