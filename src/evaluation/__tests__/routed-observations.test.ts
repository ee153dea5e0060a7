import { describe, expect, it } from 'vitest';
import { EngineFailureCode, type EngineRequest, type ItemResult } from '../../engine/index.js';
import type { RollupRepository } from '../../rollups/index.js';
import { createEvaluationService } from '../evaluation-service.js';
import type { ResolvedPolicy } from '../policy-resolver.js';
import type { RoutedObservation } from '../rollout-tally.js';

// A canary's routed answers are observed for the guard, by side; answers the caller caused to fail
// (its context: PL5xxx; its going away: cancelled) are not. The dispatcher, audit, rollups and
// resolver are the edges: stand-ins.
const policy = (version: number): ResolvedPolicy => ({ source: `V${version}`, locale: 'en-US', functionName: 'price', policyModule: 'm.x', version, versionId: `m.x@${version}` });
const failed = (code: string): ItemResult => ({ kind: 'evaluated', ok: false, code, error: code, diagnostics: [], executionTimeMs: 2 });

describe('routed observations', () => {
  it('count each routed answer by side, except those the caller caused to fail', async () => {
    const observed: RoutedObservation[] = [];
    const answers: Record<string, ItemResult> = {
      good: { kind: 'evaluated', ok: true, value: 1, executionTimeMs: 1, moduleName: 'm.x' },
      broken: failed('PL3001'),
      misfit: failed('PL5004'),
      gone: failed(EngineFailureCode.CANCELLED),
    };
    const service = createEvaluationService({
      dispatcher: { dispatch: async (requests: readonly EngineRequest[]) => requests.map((r) => answers[(r as { context: { kind: string } }).context.kind]!) },
      audit: { append: async () => ({ id: 'r', contentHash: 'h' }) },
      rollups: { add: async () => {} } as unknown as RollupRepository,
      policies: {
        async resolve(_tenantId, request) {
          const pinned = request.version !== undefined;
          return {
            ok: true,
            policy: policy(1),
            ...(pinned ? {} : { rollout: { pick: () => ({ answer: policy(2), shadow: null, routed: { rollout: 5, side: 'rollout' as const } }) } }),
          };
        },
      },
      shadow: { dispatcher: { dispatch: async () => [] }, tally: { count: () => {}, observe: (o) => observed.push(o) } },
    });
    const entry = (kind: string, version?: number) => ({ kind: 'stored' as const, request: { policyModule: 'm.x', policyFunction: 'price', context: { kind }, ...(version ? { version } : {}) } });
    await service.evaluate({ tenantId: 'acme', actorId: 'a' }, [entry('good'), entry('broken'), entry('misfit'), entry('gone'), entry('broken', 2)], { trace: false });
    expect(observed).toEqual([
      { tenantId: 'acme', policyModule: 'm.x', rollout: 5, side: 'rollout', ok: true, executionTimeMs: 1 },
      { tenantId: 'acme', policyModule: 'm.x', rollout: 5, side: 'rollout', ok: false, executionTimeMs: 2 },
    ]);
  });
});
