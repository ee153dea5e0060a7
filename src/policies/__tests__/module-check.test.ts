import { describe, expect, it } from 'vitest';
import { engineFailure, type CompileOutcome, type EvaluationOutcome, type FormatOutcome } from '../../engine/index.js';
import { createModuleCheck } from '../module-check.js';
import { PolicyRegistryError } from '../policy-errors.js';

// The engine is the edge of a check: stand-ins answer what it would, and record what was asked.
const COMPILED: CompileOutcome = {
  kind: 'compiled',
  ok: true,
  module: { moduleName: 'acme.pricing', locale: 'de-DE', functions: [{ name: 'price', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }], workflows: [] },
  diagnostics: [],
  executionTimeMs: 1,
};
const value = (v: number): EvaluationOutcome => ({ kind: 'evaluated', ok: true, value: v, moduleName: 'acme.pricing', executionTimeMs: 1 });

function checking(compiled: CompileOutcome, cases: EvaluationOutcome[] = [], printed: FormatOutcome = { kind: 'formatted', ok: true, text: 'Module acme.pricing.\n', executionTimeMs: 1 }) {
  const asked: string[] = [];
  const check = createModuleCheck({
    compile: async (_tenant, _source, locale) => (asked.push(`compile ${locale}`), compiled),
    evaluateCases: async (_tenant, _source, _locale, sent) => (asked.push(`cases ${sent.length}`), cases),
    format: async (_tenant, _source, locale, target) => (asked.push(`format ${locale} ${target}`), printed),
  });
  return { check, asked };
}

const TESTS = {
  cases: [
    { name: 'passes', rule: 'price', context: { x: 1 }, expect: 2 },
    { name: 'fails', rule: 'price', context: { x: 2 }, expect: 5 },
  ],
};

describe('a check', () => {
  it('reads the source in the locale its header names, runs the cases and prints it in the engine', async () => {
    const { check, asked } = checking(COMPILED, [value(2), value(4)]);
    const report = await check('acme', { source: 'Modul acme.pricing.', tests: TESTS, showIn: 'en-US' });
    expect(asked).toEqual(['compile de-DE', 'cases 2', 'format de-DE en-US']);
    expect(report).toEqual({
      ok: false,
      locale: 'de-DE',
      module: 'acme.pricing',
      functions: [{ name: 'price', parameters: [{ name: 'x', type: 'Int' }], returns: 'Int' }],
      workflows: [],
      diagnostics: [],
      tests: {
        passed: 1,
        failed: 1,
        cases: [
          { name: 'passes', rule: 'price', passed: true, expected: { result: 2 }, actual: { result: 2 } },
          { name: 'fails', rule: 'price', passed: false, expected: { result: 5 }, actual: { result: 4 }, reason: 'expected 5, got 4' },
        ],
      },
      formatted: { locale: 'en-US', source: 'Module acme.pricing.\n' },
    });
  });

  it('runs no case and prints nothing for a source with errors, which is an answer', async () => {
    const diagnostic = { code: 'PL1007' as const, severity: 'error' as const, message: 'missing `.`', span: { start: 0, end: 6, line: 1, column: 1, endLine: 1, endColumn: 7 } };
    const { check, asked } = checking({ kind: 'compiled', ok: false, code: 'PL1007', error: 'PL1007 missing `.`', diagnostics: [diagnostic], executionTimeMs: 1 });
    const report = await check('acme', { source: 'Module', locale: 'en-US', tests: TESTS, showIn: 'de-DE' });
    expect(asked).toEqual(['compile en-US']);
    expect(report).toEqual({
      ok: false,
      locale: 'en-US',
      module: null,
      functions: [],
      workflows: [],
      diagnostics: [{ code: 'PL1007', severity: 'error', message: 'missing `.`', span: { start: { line: 1, column: 1, offset: 0 }, end: { line: 1, column: 7, offset: 6 } } }],
    });
  });

  it('answers what the engine failed at itself as a 503 to retry or an internal error, never as the source\'s', async () => {
    const stopped = checking(engineFailure('compiled', 'ERR_EVALUATION_THREAD_STOPPED', 'evaluation thread stopped unexpectedly'));
    await expect(stopped.check('acme', { source: 'Module acme.' })).rejects.toMatchObject({ status: 503, code: 'ERR_EVALUATION_THREAD_STOPPED' });
    const broken = checking(engineFailure('compiled', 'ERR_EVALUATION_INTERNAL', 'internal error while evaluating the policy'));
    const error = await broken.check('acme', { source: 'Module acme.' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PolicyRegistryError);
    const cancelled = checking(COMPILED, [value(2), engineFailure('evaluated', 'ERR_EVALUATION_CANCELLED', 'evaluation cancelled')]);
    await expect(cancelled.check('acme', { source: 'Module acme.', tests: TESTS })).rejects.toMatchObject({ status: 503, code: 'ERR_EVALUATION_CANCELLED' });
  });
});
