import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { normaliseAuditEvent } from '../../audit/index.js';
import type { EvaluationOutcome } from '../../engine/index.js';
import { SOURCE_EVALUATED, sourceEvaluatedEvent, sourceHash } from '../source-evaluation-audit.js';

const request = { source: 'Module m.\n', functionName: 'f', context: { secret: 'kept out' }, locale: 'de' };
const ok: EvaluationOutcome = { kind: 'evaluated', ok: true, value: 1, executionTimeMs: 0.25, moduleName: 'com.acme.m' };

describe('sourceEvaluatedEvent', () => {
  it('hashes the source and leaves the context out', () => {
    expect(sourceHash('Grüße')).toBe(createHash('sha256').update(Buffer.from('Grüße', 'utf8')).digest('hex'));
    const event = sourceEvaluatedEvent('alice', request, sourceHash(request.source), ok);
    expect(event).toEqual({
      eventType: SOURCE_EVALUATED,
      policyModule: 'com.acme.m',
      policyFunction: 'f',
      actorId: 'alice',
      payload: { sourceHash: sourceHash(request.source), functionName: 'f', locale: 'de', success: true, executionTimeMs: 0.25 },
    });
  });

  it('records the error of a failure; the module is null when the source did not compile', () => {
    const failed: EvaluationOutcome = { kind: 'evaluated', ok: false, code: 'PL1007', diagnostics: [], error: 'PL1007 missing `.` at 1:9', executionTimeMs: 0.1 };
    const event = sourceEvaluatedEvent('alice', request, 'h', failed);
    expect(event.policyModule).toBeNull();
    expect(event.payload).toMatchObject({ success: false, error: 'PL1007 missing `.` at 1:9' });
  });

  it('always produces an event the audit chain accepts', () => {
    // Unpaired surrogates quoted from the source, and an over-long module name, must not fail the append.
    const odd: EvaluationOutcome = {
      kind: 'evaluated',
      ok: false,
      code: 'PL1001',
      diagnostics: [],
      error: 'PL1001 unexpected character `\ud800`',
      executionTimeMs: 0,
      moduleName: 'm'.repeat(300),
    };
    const event = sourceEvaluatedEvent('alice', request, 'h', odd);
    expect(event.payload.error).toBe('PL1001 unexpected character `\uFFFD`');
    expect(event.policyModule).toBeNull();
    expect(() => normaliseAuditEvent(event, new Date())).not.toThrow();
  });
});
