import { describe, expect, it } from 'vitest';
import { THREAD_STOPPED_ERROR, type ItemResult } from '../../engine/index.js';
import type { Diagnostic } from '../../language/diagnostics/index.js';
import { rejectedItem, toResponseItem } from '../evaluation-response.js';

const span = { start: 7, end: 8, line: 1, column: 8, endLine: 1, endColumn: 9 };

describe('toResponseItem', () => {
  it('answers a success with the value, a null error and no diagnostics', () => {
    const result: ItemResult = { ok: true, value: { a: [1] }, diagnostics: [], error: null, executionTimeMs: 1.5, moduleName: 'm' };
    expect(toResponseItem(result, false)).toEqual({ result: { a: [1] }, error: null, executionTimeMs: 1.5, diagnostics: [] });
  });

  it('answers a failure with the error string, the first error code and public diagnostics only', () => {
    // A span carrying more than the documented fields (as a lexer token would) is trimmed to them.
    const leaky = { ...span, kind: 'ident', text: 'x' } as unknown as Diagnostic['span'];
    const diagnostics: Diagnostic[] = [
      { code: 'PL2021', severity: 'warning', message: 'unreachable', span: null },
      { code: 'PL1007', severity: 'error', message: 'missing `.`', span: leaky, help: 'add a `.`' },
    ];
    const result: ItemResult = { ok: false, value: null, diagnostics, error: 'PL1007 missing `.` at 1:8', executionTimeMs: 0.2 };
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
    const stopped: ItemResult = { ok: false, value: null, diagnostics: [], error: THREAD_STOPPED_ERROR, executionTimeMs: 0 };
    const internal: ItemResult = { ok: false, value: null, diagnostics: [], error: 'internal error while evaluating the policy', executionTimeMs: 0 };
    expect(toResponseItem(stopped, false).code).toBe('ERR_EVALUATION_THREAD_STOPPED');
    expect(toResponseItem(internal, false).code).toBe('ERR_EVALUATION_INTERNAL');
  });

  it('adds the trace only when asked, an empty one when the engine recorded none', () => {
    const trace = [{ kind: 'return' as const, rule: 'f', text: '1', span, value: 1 }];
    const result: ItemResult = { ok: true, value: 1, diagnostics: [], error: null, executionTimeMs: 0, trace };
    expect(toResponseItem(result, true).trace).toEqual(trace);
    expect('trace' in toResponseItem(result, false)).toBe(false);
    expect(toResponseItem({ ...result, trace: undefined }, true).trace).toEqual([]);
  });
});

describe('rejectedItem', () => {
  it('is the envelope of an item that never ran', () => {
    expect(rejectedItem('ERR_X', 'why')).toEqual({ result: null, error: 'why', executionTimeMs: 0, code: 'ERR_X', diagnostics: [] });
  });
});
