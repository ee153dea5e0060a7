import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '../audit/index.js';
import { EngineFailureCode, type EngineRequest, type EvaluationOutcome } from '../engine/index.js';
import type { EvaluationDispatcher } from './evaluation-dispatcher.js';
import type { ResolvedPolicy, ShadowCopy } from './policy-resolver.js';
import type { RollupRecorder } from './rollup-recorder.js';
import type { RolloutTally, ShadowComparison, ShadowOutcome, ShadowSideResult } from './rollout-tally.js';

/** One evaluation that answered, and the copy to run of it. */
export interface ShadowJob {
  copy: ShadowCopy;
  answered: ResolvedPolicy;
  context: unknown;
  result: EvaluationOutcome;
}

export interface ShadowCopiesDeps {
  /** A dispatcher of its own (low-priority jobs, one batch in flight): copies never share an answer's batch. */
  dispatcher: Pick<EvaluationDispatcher, 'dispatch'>;
  tally: RolloutTally;
  /** The shadow version's evaluations count in its rollups (detectors and the guard read them); they are not audited: they answered nobody. */
  rollups: Pick<RollupRecorder, 'record'>;
  /**
   * Copies waiting or running in this process at most (default DEFAULT_MAX_PENDING_COPIES), and a
   * quarter of that per tenant, so one tenant's shadows cannot take every other tenant's place;
   * more are skipped.
   */
  maxPending?: number;
  now?: () => Date;
}

export const DEFAULT_MAX_PENDING_COPIES = 256;

export interface ShadowCopies {
  /** Runs the copies after their answers are given; never waits, never throws. */
  submit(tenantId: string, jobs: readonly ShadowJob[]): void;
  /** Copies waiting or running. */
  pending(): number;
  /** Resolves when every copy submitted so far is compared. */
  settled(): Promise<void>;
}

/** SHA-256 of the context's canonical JSON; of its JSON text when it has no canonical form (a lone surrogate). */
function contextHash(context: unknown): string {
  let text: string;
  try {
    text = canonicalJson(context);
  } catch {
    text = JSON.stringify(context) ?? 'null';
  }
  return createHash('sha256').update(text).digest('hex');
}

function sideOf(outcome: EvaluationOutcome): ShadowSideResult {
  return outcome.ok ? { ok: true, value: outcome.value } : { ok: false, code: outcome.code, error: outcome.error };
}

function compare(stable: EvaluationOutcome, shadow: EvaluationOutcome): Exclude<ShadowOutcome, 'skipped'> {
  if (stable.ok && shadow.ok) return isDeepStrictEqual(stable.value, shadow.value) ? 'agreed' : 'disagreed';
  if (!stable.ok && !shadow.ok) return stable.code === shadow.code ? 'agreed' : 'disagreed';
  return shadow.ok ? 'disagreed' : 'errors';
}

/**
 * Shadow evaluations: each copy runs after its answer was given, through a dispatcher of its own,
 * so a slow or failing shadow version delays and fails no answer; it is compared with the answer
 * and counted in the tally. Pending copies are bounded per process: past the bound, copies are
 * skipped (and counted as such), so a shadow version can never build an unbounded backlog.
 */
export function createShadowCopies(deps: ShadowCopiesDeps): ShadowCopies {
  const maxPending = deps.maxPending ?? DEFAULT_MAX_PENDING_COPIES;
  const maxPendingPerTenant = Math.max(1, Math.floor(maxPending / 4));
  const now = deps.now ?? (() => new Date());
  let pending = 0;
  const pendingOf = new Map<string, number>();
  const running = new Set<Promise<void>>();

  function count(tenantId: string, job: ShadowJob, outcome: ShadowOutcome, shadow?: EvaluationOutcome): void {
    const { copy, answered, context, result } = job;
    const comparison: ShadowComparison = { tenantId, policyModule: answered.policyModule, rollout: copy.rollout, outcome };
    if (shadow !== undefined && (outcome === 'disagreed' || outcome === 'errors')) {
      comparison.sample = {
        at: now().toISOString(),
        policyFunction: answered.functionName,
        stable: sideOf(result),
        shadow: sideOf(shadow),
        contextHash: contextHash(context),
        ...(copy.captureContexts ? { context } : {}),
      };
    }
    deps.tally.count(comparison);
  }

  async function run(tenantId: string, jobs: readonly ShadowJob[]): Promise<void> {
    const requests: EngineRequest[] = jobs.map(({ copy, context }) => ({
      kind: 'evaluate',
      tenantId,
      source: copy.policy.source,
      locale: copy.policy.locale,
      functionName: copy.policy.functionName,
      context,
      trace: false,
    }));
    let results;
    try {
      results = await deps.dispatcher.dispatch(requests);
    } catch {
      // Nothing could evaluate the copies (no worker, Redis down): the answers went out; the copies did not run.
      for (const job of jobs) count(tenantId, job, 'skipped');
      return;
    }
    jobs.forEach((job, index) => {
      const result = results[index];
      if (result?.kind !== 'evaluated' || (!result.ok && result.code === EngineFailureCode.CANCELLED)) {
        count(tenantId, job, 'skipped');
        return;
      }
      const { policy } = job.copy;
      deps.rollups
        .record(tenantId, { policyModule: policy.policyModule, policyFunction: policy.functionName, version: policy.version, ok: result.ok, executionTimeMs: result.executionTimeMs })
        .catch(() => {});
      count(tenantId, job, compare(job.result, result), result);
    });
  }

  return {
    submit(tenantId, jobs) {
      const taken: ShadowJob[] = [];
      const tenantPending = pendingOf.get(tenantId) ?? 0;
      for (const job of jobs) {
        if (pending + taken.length >= maxPending || tenantPending + taken.length >= maxPendingPerTenant) count(tenantId, job, 'skipped');
        else taken.push(job);
      }
      if (taken.length === 0) return;
      pending += taken.length;
      pendingOf.set(tenantId, tenantPending + taken.length);
      const done: Promise<void> = run(tenantId, taken)
        .catch(() => {})
        .finally(() => {
          pending -= taken.length;
          const left = (pendingOf.get(tenantId) ?? 0) - taken.length;
          if (left > 0) pendingOf.set(tenantId, left);
          else pendingOf.delete(tenantId);
          running.delete(done);
        });
      running.add(done);
    },
    pending: () => pending,
    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
