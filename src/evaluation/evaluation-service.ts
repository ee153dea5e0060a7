import type { AuditReceipt, AuditRecorder } from '../audit/index.js';
import { isContextInputCode } from '../language/index.js';
import { EngineFailureCode, engineFailure, type CompileOutcome, type EngineRequest, type EvaluationOutcome, type FormatOutcome } from '../engine/index.js';
import type { RollupRepository } from '../rollups/index.js';
import type { CallerGone } from './caller-gone.js';
import { contextDepthProblem, DEFAULT_CONTEXT_MAX_DEPTH } from './context-bounds.js';
import type { EvaluationDispatcher } from './evaluation-dispatcher.js';
import { EvaluationErrorCode } from './evaluation-errors.js';
import type { BatchEntry, SourceEvaluationRequest } from './evaluation-request.js';
import type { PolicyResolution, PolicyResolver, ResolvedPolicy, RoutedChoice } from './policy-resolver.js';
import { createRollupRecorder, type RollupRecorder } from './rollup-recorder.js';
import { createShadowCopies, type ShadowCopies, type ShadowCopiesDeps, type ShadowJob } from './shadow-copies.js';
import { sourceEvaluatedEvent, sourceHash } from './source-evaluation-audit.js';
import { withinStoreWait, type StoreWaitExceeded, type StoreWaitPart } from './store-wait.js';
import { policyEvaluatedEvent } from './stored-evaluation-audit.js';

export interface EvaluationLimits {
  /** CONTEXT_MAX_DEPTH: deeper contexts fail before anything is queued. */
  contextMaxDepth: number;
  /**
   * EVALUATION_MAX_RESPONSE_BYTES: the answers of one request together; each of n items may
   * produce at most 1/n of it (and never more than the engine's own per-result limit).
   */
  maxResponseBytes: number;
  /**
   * EVALUATION_STORE_WAIT_MS: how long one evaluation waits for the store, its policy lookups and
   * its audit records together, before it answers 503 (a stalled store answers nothing for long).
   * Absent: no wait of its own; the evaluation waits as long as the store's own timeouts say.
   */
  storeWaitMs?: number;
}

export const DEFAULT_EVALUATION_LIMITS: EvaluationLimits = {
  contextMaxDepth: DEFAULT_CONTEXT_MAX_DEPTH,
  maxResponseBytes: 16 * 1024 * 1024,
};

export interface EvaluationServiceDeps {
  /** Where evaluations run (the `policy-evaluate` queue in the service). */
  dispatcher: Pick<EvaluationDispatcher, 'dispatch'>;
  /** The audit recorder: SOURCE_EVALUATED and POLICY_EVALUATED records, one per evaluated entry. */
  audit: Pick<AuditRecorder, 'append'>;
  /** Per-minute rollups of stored-policy evaluations (what anomaly detection reads). */
  rollups: RollupRepository;
  /** Deployed policies by reference. */
  policies: PolicyResolver;
  limits?: Partial<EvaluationLimits>;
  /** Where rollouts' shadow copies run (their own dispatcher), and where they and canaries' routed answers are counted; without it, neither is. */
  shadow?: Omit<ShadowCopiesDeps, 'rollups'>;
  /** Told once for every evaluation that answers 503 because the store did not answer within `storeWaitMs`. */
  onStoreWaitExceeded?: (exceeded: StoreWaitExceeded) => void;
  now?: () => Date;
}

/** Who asks: the tenant and the actor recorded in the audit chain. */
export interface EvaluationCaller {
  tenantId: string;
  actorId: string;
}

export interface EvaluationRunOptions {
  /** Record and return the decision trace of every evaluated item. */
  trace: boolean;
  /** When the requester goes, what has not run is cancelled and the call rejects with the reason (RequesterGoneError). */
  gone?: CallerGone;
}

/** One entry's outcome, and for a deployed policy which version answered. */
export interface EvaluationAnswer {
  result: EvaluationOutcome;
  policy?: ResolvedPolicy;
  /** The entry named a module, version or rule the tenant does not have (404 for a lone request). */
  notFound?: boolean;
  /**
   * The receipt of the entry's audit record, stored before the answer: present for every entry
   * that was evaluated (one record each), absent for one refused before it (nothing was recorded).
   */
  receipt?: AuditReceipt;
}

export interface EvaluationService {
  /**
   * One answer per entry, in order; each succeeds or fails on its own. All evaluations of the call
   * go to the dispatcher at once. Rejects with the dispatcher's EvaluationUnavailableError when
   * nothing can evaluate, or when an audit record cannot be stored.
   */
  evaluate(caller: EvaluationCaller, entries: readonly BatchEntry[], options: EvaluationRunOptions): Promise<EvaluationAnswer[]>;
  /** Checks and compiles a module source in the engine (never on the caller's event loop). */
  compile(tenantId: string, source: string, locale: string): Promise<CompileOutcome>;
  /**
   * Evaluates rules of a source that is not deployed yet (a deploy's test cases) in the engine, one
   * outcome per case in order: neither audited nor counted in the rollups, as no policy answered.
   * The cases' results share maxResponseBytes as a batch's answers do (their report carries them).
   */
  evaluateCases(tenantId: string, source: string, locale: string, cases: readonly SourceCase[]): Promise<EvaluationOutcome[]>;
  /** Prints a module source in another locale in the engine (never on the caller's event loop). */
  format(tenantId: string, source: string, locale: string, targetLocale: string): Promise<FormatOutcome>;
  /** Waits for the shadow copies submitted so far, then stores the rollups still gathered in memory. */
  flush(): Promise<void>;
}

/** A rule of a source and the context to evaluate it with. */
export interface SourceCase {
  rule: string;
  context: unknown;
}

type Planned =
  | { index: number; kind: 'source'; request: SourceEvaluationRequest }
  | { index: number; kind: 'stored'; policy: ResolvedPolicy };

/**
 * The only path from a request to the engine and into the records: resolves deployed policies,
 * dispatches, audits every evaluation and counts stored-policy evaluations in the rollups. The
 * answer leaves only after its audit records are stored (the linker chains them later), each
 * evaluated entry carrying its record's receipt: the recorder shares one insert among all requests
 * in flight, so this costs latency (a few ms), not a round trip per request.
 */
export function createEvaluationService(deps: EvaluationServiceDeps): EvaluationService {
  const limits: EvaluationLimits = { ...DEFAULT_EVALUATION_LIMITS, ...deps.limits };
  const rollups: RollupRecorder = createRollupRecorder(deps.rollups, deps.now ? { now: deps.now } : {});
  const shadows: ShadowCopies | null = deps.shadow === undefined ? null : createShadowCopies({ ...deps.shadow, rollups });

  async function resolveAll(tenantId: string, entries: readonly BatchEntry[]): Promise<Map<number, PolicyResolution>> {
    const resolutions = new Map<number, PolicyResolution>();
    if (!entries.some((entry) => entry.kind === 'stored')) return resolutions;
    // Items of one batch often name the same policy: resolve each distinct reference once.
    const distinct = new Map<string, Promise<PolicyResolution>>();
    await Promise.all(
      entries.map(async (entry, index) => {
        if (entry.kind !== 'stored') return;
        const { policyModule, policyFunction, version } = entry.request;
        const key = `${policyModule}\u0000${policyFunction}\u0000${version ?? ''}`;
        let resolution = distinct.get(key);
        if (resolution === undefined) {
          resolution = deps.policies.resolve(tenantId, entry.request);
          distinct.set(key, resolution);
        }
        resolutions.set(index, await resolution);
      }),
    );
    return resolutions;
  }

  /** Stores one audit record per evaluated entry (and its rollup); resolves with the receipts, in `planned` order. */
  async function record(caller: EvaluationCaller, planned: readonly Planned[], answers: readonly EvaluationAnswer[]): Promise<AuditReceipt[]> {
    const hashes = new Map<string, string>();
    const receipts: Promise<AuditReceipt>[] = [];
    const rollupWrites: Promise<unknown>[] = [];
    for (const plan of planned) {
      const { result } = answers[plan.index]!;
      if (plan.kind === 'source') {
        let hash = hashes.get(plan.request.source);
        if (hash === undefined) {
          hash = sourceHash(plan.request.source);
          hashes.set(plan.request.source, hash);
        }
        receipts.push(deps.audit.append(caller.tenantId, sourceEvaluatedEvent(caller.actorId, plan.request, hash, result)));
        continue;
      }
      const { policy } = plan;
      receipts.push(deps.audit.append(caller.tenantId, policyEvaluatedEvent(caller.actorId, policy, result)));
      rollupWrites.push(
        rollups.record(caller.tenantId, {
          policyModule: policy.policyModule,
          policyFunction: policy.functionName,
          version: policy.version,
          ok: result.ok,
          executionTimeMs: result.executionTimeMs,
        }),
      );
    }
    const [stored] = await Promise.all([Promise.all(receipts), Promise.all(rollupWrites)]);
    return stored;
  }

  /**
   * A canary's routed answer, for the guard; one the caller caused to fail (its context, or its
   * going away before the item ran) says nothing of the version.
   */
  function observeRouted(tenantId: string, answer: EvaluationAnswer, routed: RoutedChoice): void {
    const { result, policy } = answer;
    if (!result.ok && (isContextInputCode(result.code) || result.code === EngineFailureCode.CANCELLED)) return;
    deps.shadow?.tally.observe({ tenantId, policyModule: policy!.policyModule, ...routed, ok: result.ok, executionTimeMs: result.executionTimeMs });
  }

  function storeWait<T>(tenantId: string, part: StoreWaitPart, work: Promise<T>, waitMs: number | undefined): Promise<T> {
    return withinStoreWait(work, waitMs, () => deps.onStoreWaitExceeded?.({ tenantId, part, waitMs: limits.storeWaitMs ?? 0 }));
  }

  /** Each of `count` answers of one request may take this many bytes: the request's answers together stay within maxResponseBytes. */
  const outputShare = (count: number): number => Math.max(1, Math.floor(limits.maxResponseBytes / Math.max(1, count)));

  async function evaluate(caller: EvaluationCaller, entries: readonly BatchEntry[], options: EvaluationRunOptions): Promise<EvaluationAnswer[]> {
    // The store's share of the wait is counted apart from the time the evaluation itself takes.
    const lookupStarted = Date.now();
    const resolutions = await storeWait(caller.tenantId, 'policy lookup', resolveAll(caller.tenantId, entries), limits.storeWaitMs);
    const storeWaitLeftMs = limits.storeWaitMs === undefined ? undefined : limits.storeWaitMs - (Date.now() - lookupStarted);
    const answers = new Array<EvaluationAnswer>(entries.length);
    const planned: Planned[] = [];
    const requests: EngineRequest[] = [];
    const shadowOf = new Map<number, Omit<ShadowJob, 'result'>>();
    const routedOf = new Map<number, RoutedChoice>();
    const outputLimitBytes = outputShare(entries.length);
    const fail = (code: string, message: string): EvaluationAnswer => ({ result: engineFailure('evaluated', code, message) });

    entries.forEach((entry, index) => {
      if (entry.kind === 'invalid') {
        answers[index] = fail(entry.code, entry.message);
        return;
      }
      const tooDeep = contextDepthProblem(entry.request.context, limits.contextMaxDepth);
      if (tooDeep !== null) {
        answers[index] = fail(EvaluationErrorCode.CONTEXT_TOO_DEEP, tooDeep);
        return;
      }
      const base = { kind: 'evaluate' as const, tenantId: caller.tenantId, context: entry.request.context, trace: options.trace, outputLimitBytes };
      if (entry.kind === 'source') {
        const { source, locale, functionName } = entry.request;
        planned.push({ index, kind: 'source', request: entry.request });
        requests.push({ ...base, source, locale, functionName });
        return;
      }
      const resolution = resolutions.get(index)!;
      if (!resolution.ok) {
        answers[index] = { ...fail(resolution.code, resolution.message), notFound: true };
        return;
      }
      // A running rollout picks the version that answers, and whether a copy runs in the shadow.
      const choice = resolution.rollout?.pick(entry.request.context);
      const policy = choice?.answer ?? resolution.policy;
      if (choice?.shadow != null && shadows !== null) shadowOf.set(index, { copy: choice.shadow, answered: policy, context: entry.request.context });
      if (choice?.routed != null) routedOf.set(index, choice.routed);
      planned.push({ index, kind: 'stored', policy });
      requests.push({ ...base, source: policy.source, locale: policy.locale, functionName: policy.functionName });
    });
    if (requests.length === 0) return answers;

    if (options.gone?.reason !== undefined) throw options.gone.reason;
    const results = await deps.dispatcher.dispatch(requests, options.gone === undefined ? {} : { gone: options.gone });
    planned.forEach((plan, position) => {
      const result = results[position]!;
      // A compile answer here would be a defect of the dispatcher; it fails the item, not the request.
      const outcome: EvaluationOutcome =
        result.kind === 'evaluated' ? result : engineFailure('evaluated', EvaluationErrorCode.INTERNAL, 'internal error while evaluating the policy');
      answers[plan.index] = plan.kind === 'stored' ? { result: outcome, policy: plan.policy } : { result: outcome };
    });
    const receipts = await storeWait(caller.tenantId, 'audit records', record(caller, planned, answers), storeWaitLeftMs);
    planned.forEach((plan, position) => {
      answers[plan.index]!.receipt = receipts[position]!;
    });
    for (const [index, routed] of routedOf) observeRouted(caller.tenantId, answers[index]!, routed);
    if (shadowOf.size > 0) {
      const jobs = [...shadowOf].map(([index, job]) => ({ ...job, result: answers[index]!.result }));
      shadows!.submit(caller.tenantId, jobs);
    }
    return answers;
  }

  return {
    evaluate,
    async compile(tenantId, source, locale) {
      const [result] = await deps.dispatcher.dispatch([{ kind: 'compile', tenantId, source, locale }]);
      if (result?.kind !== 'compiled') throw new Error('the dispatcher answered no compile outcome');
      return result;
    },
    async evaluateCases(tenantId, source, locale, cases) {
      if (cases.length === 0) return [];
      const results = await deps.dispatcher.dispatch(
        cases.map((c) => ({ kind: 'evaluate' as const, tenantId, source, locale, functionName: c.rule, context: c.context, outputLimitBytes: outputShare(cases.length) })),
      );
      return results.map((result) =>
        result.kind === 'evaluated' ? result : engineFailure('evaluated', EvaluationErrorCode.INTERNAL, 'internal error while evaluating the policy'),
      );
    },
    async format(tenantId, source, locale, targetLocale) {
      const [result] = await deps.dispatcher.dispatch([{ kind: 'format', tenantId, source, locale, targetLocale }]);
      if (result?.kind !== 'formatted') throw new Error('the dispatcher answered no format outcome');
      return result;
    },
    async flush() {
      await shadows?.settled();
      await rollups.flush();
    },
  };
}
