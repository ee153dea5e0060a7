import { describe, expect, it } from 'vitest';
import { EngineFailureCode, engineFailure, THREAD_STOPPED_ERROR, type EvaluationOutcome } from '../../engine/index.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { toResponseItem } from '../evaluation-response.js';

const span = { start: 7, end: 8, line: 1, column: 8, endLine: 1, endColumn: 9 };

describe('toResponseItem', () => {
  it('answers a success with the value, a null error and no diagnostics', () => {
    const result: EvaluationOutcome = { kind: 'evaluated', ok: true, value: { a: [1] }, executionTimeMs: 1.5, moduleName: 'm' };
    expect(toResponseItem(result, false)).toEqual({ result: { a: [1] }, error: null, executionTimeMs: 1.5, diagnostics: [] });
  });

  it('answers a failure with the error string, its code and public diagnostics only', () => {
    // A span carrying more than the documented fields (as a lexer token would) is trimmed to them.
    const leaky = { ...span, kind: 'ident', text: 'x' } as unknown as Diagnostic['span'];
    const diagnostics: Diagnostic[] = [
      { code: 'PL2021', severity: 'warning', message: 'unreachable', span: null },
      { code: 'PL1007', severity: 'error', message: 'missing `.`', span: leaky, help: 'add a `.`' },
    ];
    const result: EvaluationOutcome = { kind: 'evaluated', ok: false, code: 'PL1007', diagnostics, error: 'PL1007 missing `.` at 1:8', executionTimeMs: 0.2 };
    expect(toResponseItem(result, false)).toEqual({
      result: null,
      error: 'PL1007 missing `.` at 1:8',
      executionTimeMs: 0.2,
      code: 'PL1007',
      diagnostics: [
        { code: 'PL2021', severity: 'warning', message: 'unreachable', span: null },
        { code: 'PL1007', severity: 'error', message: 'missing `.`', span, help: 'add a `.`' },
      ],
    });
  });

  it('names engine failures without a diagnostic by their own codes', () => {
    const stopped = engineFailure('evaluated', EngineFailureCode.THREAD_STOPPED, THREAD_STOPPED_ERROR);
    expect(toResponseItem(stopped, false)).toEqual({
      result: null,
      error: THREAD_STOPPED_ERROR,
      executionTimeMs: 0,
      code: 'ERR_EVALUATION_THREAD_STOPPED',
      diagnostics: [],
    });
  });

  it('adds the trace only when asked, an empty one when the engine recorded none', () => {
    const trace = [{ kind: 'return' as const, rule: 'f', text: '1', span, value: 1 }];
    const result: EvaluationOutcome = { kind: 'evaluated', ok: true, value: 1, moduleName: 'm', executionTimeMs: 0, trace };
    expect(toResponseItem(result, true).trace).toEqual(trace);
    expect('trace' in toResponseItem(result, false)).toBe(false);
    const { trace: _, ...untraced } = result;
    expect(toResponseItem(untraced, true).trace).toEqual([]);
  });
});
