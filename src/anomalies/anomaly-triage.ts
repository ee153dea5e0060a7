import type { AuditRecorder, AuditOutboxLease } from '../audit/index.js';
import type { KeyedRequest } from '../idempotency/index.js';
import { pageView, type Page } from '../kernel/index.js';
import type { AnomalyStatus, AnomalyType } from './anomaly-enums.js';
import { AnomalyError, AnomalyErrorCode, anomalyNotFound, transitionNotPermitted, verificationNotPermitted } from './anomaly-errors.js';
import { TRIAGE_TRANSITIONS, type TriageTarget } from './anomaly-status-rules.js';
import type { AnomalyRepository, AnomalyState } from './anomaly-store.js';
import type { VerificationRequest } from './anomaly-verifier.js';
import { detailView, listItemView, type AnomalyDetail, type AnomalyListItem } from './anomaly-view.js';
import { createAuditedTransitions } from './audited-transitions.js';

const DAY_MS = 86_400_000;
/** Rounds of losing the race for the next status before giving up; each lost round means another change won. */
const MAX_CHANGE_ATTEMPTS = 8;

export interface AnomalyListRequest {
  page: number;
  size: number;
  type?: AnomalyType;
  days: number;
}

export type AnomalyPageView = Page<AnomalyListItem>;

/** What a request that must take effect once adds to a change. */
export interface OnceOnlyChange<T> {
  /**
   * A call whose request's change is stored answers as that request did (the anomaly after the
   * change) and changes nothing.
   */
  request?: KeyedRequest;
  /**
   * Runs as soon as the change holds, before its audit record is written: from then on the change
   * stays, even should this call still fail (its record cannot be written).
   */
  onStored?: (result: T) => void;
}

export interface AnomalyTriage {
  list(tenantId: string, request: AnomalyListRequest): Promise<AnomalyPageView>;
  get(tenantId: string, id: string): Promise<AnomalyDetail>;
  /** PATCH: one of the permitted moves (409 otherwise); exactly one of concurrent changes wins. */
  changeStatus(
    tenantId: string,
    id: string,
    target: TriageTarget,
    note: string | null,
    actorId: string,
    once?: OnceOnlyChange<AnomalyDetail>,
  ): Promise<AnomalyDetail>;
  /** OPEN → VERIFYING and queue the verification job (409 unless OPEN); it holds once the job is queued. */
  startVerification(tenantId: string, id: string, actorId: string, once?: OnceOnlyChange<void>): Promise<void>;
}

export interface AnomalyTriageDeps {
  anomalies: AnomalyRepository;
  audit: Pick<AuditRecorder, 'append'>;
  /** The claim this process stores status changes under (default: a new one); see audited-transitions.ts. */
  auditLease?: AuditOutboxLease;
  /** A change's record was written but the change not marked: harmless, worth a log line. */
  onAuditMarkError?: (error: unknown) => void;
  /** Queues the `anomaly-verify` job; rejects when it cannot. */
  enqueueVerification(request: VerificationRequest): Promise<void>;
  now?: () => Date;
}

/** The verification job of a stored VERIFYING change could not be queued. */
class VerificationNotQueued extends Error {
  constructor(
    readonly reason: unknown,
    readonly seq: number,
  ) {
    super('the verification job could not be queued');
  }
}

export function createAnomalyTriage(deps: AnomalyTriageDeps): AnomalyTriage {
  const now = deps.now ?? (() => new Date());
  const transitions = createAuditedTransitions({ ...deps, now });

  async function load(tenantId: string, id: string): Promise<AnomalyState> {
    const anomaly = await deps.anomalies.get(tenantId, id);
    if (anomaly === null) throw anomalyNotFound(id);
    return anomaly;
  }

  /**
   * The anomaly as `request` left it, when its change to `to` is stored; else null. The request's
   * newest change decides: a verification undone because its job could not be queued (its OPEN
   * again carries the same reference) has not taken effect, and runs again.
   */
  async function changeMadeBy(tenantId: string, anomaly: AnomalyState, to: AnomalyStatus, request: KeyedRequest): Promise<AnomalyState | null> {
    const since = Date.parse(request.since);
    const made = (await deps.anomalies.transitions(tenantId, anomaly.id))
      .filter((t) => t.requestRef === request.ref && Date.parse(t.occurredAt) >= since)
      .at(-1);
    if (made === undefined || made.to !== to) return null;
    return { ...anomaly, status: made.to, statusSeq: made.seq, statusChangedAt: made.occurredAt };
  }

  /**
   * Appends `to` on top of the status read, deciding again after each lost race (the transition log's
   * unique seq is the arbiter, on every store). `permitted` judges the status read each time. With
   * a keyed `request`, a change that request already made is answered instead (see changeMadeBy).
   */
  async function change(
    tenantId: string,
    id: string,
    to: AnomalyStatus,
    note: string | null,
    actorId: string,
    permitted: (anomaly: AnomalyState) => AnomalyError | null,
    whenStored?: (changed: AnomalyState) => Promise<void>,
    request?: KeyedRequest,
  ): Promise<AnomalyState> {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt += 1) {
      const anomaly = await load(tenantId, id);
      const already = request === undefined ? null : await changeMadeBy(tenantId, anomaly, to, request);
      if (already !== null) return already;
      const refusal = permitted(anomaly);
      if (refusal !== null) throw refusal;
      const occurredAt = now().toISOString();
      const seq = anomaly.statusSeq + 1;
      const changed: AnomalyState = { ...anomaly, status: to, statusSeq: seq, statusChangedAt: occurredAt };
      const transition = { anomalyId: id, seq, from: anomaly.status, to, note, actorId, occurredAt, ...(request === undefined ? {} : { requestRef: request.ref }) };
      if (await transitions.append(tenantId, anomaly, transition, whenStored && (() => whenStored(changed)))) return changed;
    }
    throw new AnomalyError(503, AnomalyErrorCode.CONTENDED, `the status of anomaly \`${id}\` kept changing concurrently: retry`);
  }

  return {
    async list(tenantId, request) {
      const detectedFrom = new Date(now().getTime() - request.days * DAY_MS).toISOString();
      const { items, total } = await deps.anomalies.list(tenantId, {
        ...(request.type !== undefined ? { type: request.type } : {}),
        detectedFrom,
        offset: request.page * request.size,
        limit: request.size,
      });
      return pageView(items.map(listItemView), total, request);
    },

    async get(tenantId, id) {
      return detailView(await load(tenantId, id));
    },

    async changeStatus(tenantId, id, target, note, actorId, once = {}) {
      const permitted = (anomaly: AnomalyState) => {
        const allowed = TRIAGE_TRANSITIONS[anomaly.status];
        return allowed.includes(target) ? null : transitionNotPermitted(anomaly.status, target, allowed);
      };
      const { onStored, request } = once;
      const whenStored = onStored && (async (stored: AnomalyState) => onStored(detailView(stored)));
      return detailView(await change(tenantId, id, target, note, actorId, permitted, whenStored, request));
    },

    async startVerification(tenantId, id, actorId, once = {}) {
      const { onStored, request } = once;
      // Queued as soon as the change is stored, before its record: should the record's write fail
      // (it then follows through the audit outbox), the anomaly still has the job that ends VERIFYING.
      const queueJob = async (verifying: AnomalyState) => {
        try {
          await deps.enqueueVerification({ tenantId, anomalyId: id, seq: verifying.statusSeq });
        } catch (error) {
          throw new VerificationNotQueued(error, verifying.statusSeq);
        }
        onStored?.();
      };
      try {
        const whenOpen = (anomaly: AnomalyState) => (anomaly.status === 'OPEN' ? null : verificationNotPermitted(anomaly.status));
        await change(tenantId, id, 'VERIFYING', null, actorId, whenOpen, queueJob, request);
      } catch (error) {
        if (!(error instanceof VerificationNotQueued)) throw error;
        // Not left VERIFYING with no job to finish it: back to OPEN, and the caller may try again.
        const note = 'verification could not be queued';
        const stillOurs = (anomaly: AnomalyState) => (anomaly.statusSeq === error.seq ? null : transitionNotPermitted(anomaly.status, 'OPEN', []));
        await change(tenantId, id, 'OPEN', note, actorId, stillOurs, undefined, request);
        throw new AnomalyError(
          503,
          AnomalyErrorCode.VERIFICATION_UNAVAILABLE,
          `the verification job could not be queued (${(error.reason as Error).message}); the anomaly is OPEN again: retry later`,
        );
      }
    },
  };
}
