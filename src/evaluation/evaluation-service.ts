import type { AuditChainWriter } from '../audit/index.js';
import type { EvaluationItem, ItemResult } from '../engine/index.js';
import type { EvaluationDispatcher } from '../jobs/index.js';
import { EvaluationErrorCode } from './evaluation-errors.js';
import type { BatchEntry, SourceEvaluationRequest, StoredPolicyRequest } from './evaluation-request.js';
import { rejectedItem, toResponseItem, type EvaluationResponseItem } from './evaluation-response.js';
import { sourceEvaluatedEvent, sourceHash } from './source-evaluation-audit.js';
import type { PolicyResolution, StoredPolicyEvaluation, StoredPolicyResolver } from './stored-policy-resolver.js';

export interface EvaluationServiceDeps {
  /** Where evaluations run (the `policy-evaluate` queue in the service). */
  dispatcher: Pick<EvaluationDispatcher, 'evaluateMany'>;
  /** The batched audit chain writer: every source evaluation becomes a SOURCE_EVALUATED record. */
  audit: Pick<AuditChainWriter, 'append'>;
  /** Deployed policies in batches; without one, such items fail with STORED_POLICY_UNSUPPORTED. */
  storedPolicies?: StoredPolicyResolver;
}

/** Who asks: the tenant and the actor recorded in the audit chain. */
export interface EvaluationCaller {
  tenantId: string;
  actorId: string;
}

export interface EvaluationRunOptions {
  /** Record and return the decision trace of every evaluated item. */
  trace: boolean;
}

export interface EvaluationService {
  evaluateSource(caller: EvaluationCaller, request: SourceEvaluationRequest, options: EvaluationRunOptions): Promise<EvaluationResponseItem>;
  /**
   * One answer per entry, in order; each succeeds or fails on its own. All evaluations of the call
   * go to the dispatcher at once, which splits them into jobs. Rejects with the dispatcher's
   * EvaluationUnavailableError when nothing can evaluate, or when an audit record cannot be stored.
   */
  evaluateBatch(caller: EvaluationCaller, entries: readonly BatchEntry[], options: EvaluationRunOptions): Promise<EvaluationResponseItem[]>;
}

const STORED_UNSUPPORTED_MESSAGE =
  'stored policies cannot be evaluated by reference on this service; send `source`, `functionName`, `context` and `locale` instead';

type Planned =
  | { kind: 'source'; index: number; request: SourceEvaluationRequest }
  | { kind: 'stored'; index: number; request: StoredPolicyRequest; resolution: Extract<PolicyResolution, { ok: true }> };

/**
 * Maps validated requests to dispatcher items, runs them, and audits them. The answer leaves only
 * after every audit record of the request is stored: the batched writer shares one insert among
 * all requests in flight, so this costs latency (a few ms), not a store round trip per request.
 */
export function createEvaluationService(deps: EvaluationServiceDeps): EvaluationService {
  async function resolveStored(caller: EvaluationCaller, requests: readonly StoredPolicyRequest[]): Promise<PolicyResolution[]> {
    if (requests.length === 0) return [];
    if (!deps.storedPolicies) {
      return requests.map(() => ({ ok: false, code: EvaluationErrorCode.STORED_POLICY_UNSUPPORTED, message: STORED_UNSUPPORTED_MESSAGE }));
    }
    const resolutions = await deps.storedPolicies.resolve(caller.tenantId, requests);
    if (resolutions.length !== requests.length) {
      throw new Error(`stored policy resolver answered ${resolutions.length} resolutions for ${requests.length} references`);
    }
    return resolutions;
  }

  async function evaluateBatch(
    caller: EvaluationCaller,
    entries: readonly BatchEntry[],
    options: EvaluationRunOptions,
  ): Promise<EvaluationResponseItem[]> {
    const answers = new Array<EvaluationResponseItem>(entries.length);
    const storedIndexes: number[] = [];
    const storedRequests: StoredPolicyRequest[] = [];
    entries.forEach((entry, index) => {
      if (entry.kind === 'stored') {
        storedIndexes.push(index);
        storedRequests.push(entry.request);
      }
    });
    const resolutions = await resolveStored(caller, storedRequests);
    const resolutionAt = new Map(storedIndexes.map((entryIndex, i) => [entryIndex, resolutions[i]!]));

    const planned: Planned[] = [];
    const items: EvaluationItem[] = [];
    entries.forEach((entry, index) => {
      if (entry.kind === 'invalid') {
        answers[index] = rejectedItem(EvaluationErrorCode.ITEM_INVALID, entry.message);
      } else if (entry.kind === 'source') {
        const { source, locale, functionName, context } = entry.request;
        planned.push({ kind: 'source', index, request: entry.request });
        items.push({ source, locale, functionName, context, trace: options.trace });
      } else {
        const resolution = resolutionAt.get(index)!;
        if (!resolution.ok) {
          answers[index] = rejectedItem(resolution.code, resolution.message);
          return;
        }
        const { source, locale, functionName } = resolution.policy;
        planned.push({ kind: 'stored', index, request: entry.request, resolution });
        items.push({ source, locale, functionName, context: entry.request.context, trace: options.trace });
      }
    });
    if (items.length === 0) return answers;

    const results = await deps.dispatcher.evaluateMany(items);

    const hashes = new Map<string, string>();
    const appends: Promise<unknown>[] = [];
    const storedEvaluations: StoredPolicyEvaluation[] = [];
    planned.forEach((plan, position) => {
      const result: ItemResult = results[position]!;
      answers[plan.index] = toResponseItem(result, options.trace);
      if (plan.kind === 'source') {
        let hash = hashes.get(plan.request.source);
        if (hash === undefined) {
          hash = sourceHash(plan.request.source);
          hashes.set(plan.request.source, hash);
        }
        appends.push(deps.audit.append(caller.tenantId, sourceEvaluatedEvent(caller.actorId, plan.request, hash, result)));
      } else {
        storedEvaluations.push({ request: plan.request, policy: plan.resolution.policy, result });
      }
    });
    if (storedEvaluations.length > 0) {
      appends.push(deps.storedPolicies!.recordEvaluations(caller.tenantId, caller.actorId, storedEvaluations));
    }
    await Promise.all(appends);
    return answers;
  }

  return {
    async evaluateSource(caller, request, options) {
      const [answer] = await evaluateBatch(caller, [{ kind: 'source', request }], options);
      return answer!;
    },
    evaluateBatch,
  };
}
