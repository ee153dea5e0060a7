import { createOwedRecordWriter, newAuditOutboxLease, type AuditOutboxLease, type AuditRecorder } from '../audit/index.js';
import { minuteOf } from '../evaluation/index.js';
import type { RollupRepository } from '../rollups/index.js';
import type { BuiltinVersions } from './builtin-versions.js';
import { endRollout } from './module-version-log.js';
import { PolicyErrorCode, PolicyRegistryError } from './policy-errors.js';
import { activationEvent } from './policy-events.js';
import { versionId } from './policy-id.js';
import type { PolicyActivation, PolicyRepository, RolloutMode } from './policy-store.js';
import type { RoutedSide, ShadowReport, SharedRolloutTally } from './rollout-tally.js';
import type { VersionResolver } from './version-resolver.js';

export const ROLLOUT_STATUSES = ['RUNNING', 'PROMOTED', 'ABORTED'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

/** One version's evaluations since the rollout started (from its rollups). */
export interface RolloutVersionStats {
  version: number;
  /** `stable`: the version answering before the rollout; `rollout`: the one rolled out. */
  role: 'stable' | 'rollout';
  evaluations: number;
  failures: number;
  /** Failures over evaluations; null without evaluations. */
  failureRate: number | null;
  /** Mean execution time in ms; null without evaluations. */
  meanTimeMs: number | null;
}

/** A side of a canary's routed answers, as the guard compares them. */
export interface RoutedStats {
  evaluations: number;
  failures: number;
  failureRate: number | null;
  meanTimeMs: number | null;
}

function routedStats(side: RoutedSide): RoutedStats {
  return {
    evaluations: side.count,
    failures: side.failures,
    failureRate: side.count === 0 ? null : side.failures / side.count,
    meanTimeMs: side.count === 0 ? null : side.timeSum / side.count,
  };
}

/** A module's newest rollout, as GET …/rollout answers it. */
export interface RolloutView {
  policyModule: string;
  /** The rollout's number in the module (the seq of its start in the activation log). */
  rollout: number;
  version: number;
  versionId: string;
  stableVersion: number;
  stableVersionId: string;
  mode: RolloutMode;
  percent: number;
  stickyKey: string | null;
  captureContexts: boolean;
  status: RolloutStatus;
  reason: string | null;
  anomalyId: string | null;
  startedAt: string;
  startedBy: string;
  endedAt: string | null;
  endedBy: string | null;
  /** Shadow rollouts: how the copies compared, and a sample of disagreements; null for a canary. */
  shadow: ShadowReport | null;
  /** The stable and the rolled-out version, from the minute the rollout started to its end (or now). */
  versions: RolloutVersionStats[];
  /**
   * Canaries: the answers the route chose, by side — not pinned evaluations, nor failures the
   * caller's context caused. What the guard compares. Null for a shadow.
   */
  routed: { stable: RoutedStats; rollout: RoutedStats } | null;
}

export interface EndRequest {
  reason?: string | undefined;
  /** The anomaly that caused an abort (the guard). */
  anomalyId?: string | null;
  /** Ends only this rollout: a guard's abort must not end a newer one. */
  rollout?: number;
}

export interface RolloutControl {
  /** The module's newest rollout; 404 when it never had one (or the module is unknown). */
  view(tenantId: string, policyModule: string): Promise<RolloutView>;
  /** Makes the rolled-out version the active one, in every process at once; 409 when none runs. */
  promote(tenantId: string, policyModule: string, actorId: string, request?: EndRequest): Promise<RolloutView>;
  /** Ends the rollout: the stable version answers everything again, in every process at once; 409 when none runs. */
  abort(tenantId: string, policyModule: string, actorId: string, request?: EndRequest): Promise<RolloutView>;
}

export interface RolloutControlDeps {
  policies: PolicyRepository;
  rollups: Pick<RollupRepository, 'totals'>;
  versions: Pick<VersionResolver, 'activationChanged'>;
  builtins: BuiltinVersions;
  rolloutTally: Pick<SharedRolloutTally, 'read'>;
  audit: Pick<AuditRecorder, 'append'>;
  auditLease?: AuditOutboxLease;
  onAuditMarkError?: (error: unknown) => void;
  now?: () => Date;
}

const DEFAULT_REASON = { PROMOTED: 'promoted', ABORTED: 'aborted' } as const;

export function createRolloutControl(deps: RolloutControlDeps): RolloutControl {
  const now = deps.now ?? (() => new Date());
  const repo = deps.policies;
  const owedRecords = createOwedRecordWriter({
    audit: deps.audit,
    lease: deps.auditLease ?? newAuditOutboxLease(),
    now,
    ...(deps.onAuditMarkError ? { onMarkError: deps.onAuditMarkError } : {}),
  });

  async function moduleUnknown(tenantId: string, policyModule: string): Promise<boolean> {
    return !deps.builtins.has(policyModule) && (await repo.latestVersion(tenantId, policyModule)) === 0;
  }

  async function versionStats(tenantId: string, policyModule: string, version: number, role: RolloutVersionStats['role'], from: string, to: string) {
    const totals = await deps.rollups.totals(tenantId, { from, to, policyModule, version });
    const evaluations = totals.reduce((sum, t) => sum + t.count, 0);
    const failures = totals.reduce((sum, t) => sum + t.failures, 0);
    const timeSum = totals.reduce((sum, t) => sum + t.timeSum, 0);
    return {
      version,
      role,
      evaluations,
      failures,
      failureRate: evaluations === 0 ? null : failures / evaluations,
      meanTimeMs: evaluations === 0 ? null : timeSum / evaluations,
    };
  }

  async function viewOf(tenantId: string, started: PolicyActivation, ended: PolicyActivation | null): Promise<RolloutView> {
    const terms = ended?.rollout ?? started.rollout!;
    const { policyModule } = started;
    const stableVersion = started.version;
    const from = minuteOf(new Date(started.occurredAt));
    const to = ended?.occurredAt ?? now().toISOString();
    const [stable, rolledOut, tally] = await Promise.all([
      versionStats(tenantId, policyModule, stableVersion, 'stable', from, to),
      versionStats(tenantId, policyModule, terms.version, 'rollout', from, to),
      deps.rolloutTally.read(tenantId, policyModule, terms.startedSeq),
    ]);
    return {
      policyModule,
      rollout: terms.startedSeq,
      version: terms.version,
      versionId: versionId(policyModule, terms.version),
      stableVersion,
      stableVersionId: versionId(policyModule, stableVersion),
      mode: terms.mode,
      percent: terms.percent,
      stickyKey: terms.stickyKey,
      captureContexts: terms.captureContexts,
      status: ended === null ? 'RUNNING' : ended.kind === 'ROLLOUT_PROMOTED' ? 'PROMOTED' : 'ABORTED',
      reason: ended?.rollout?.reason ?? null,
      anomalyId: ended?.rollout?.anomalyId ?? null,
      startedAt: started.occurredAt,
      startedBy: started.actorId,
      endedAt: ended?.occurredAt ?? null,
      endedBy: ended?.actorId ?? null,
      shadow: terms.mode === 'shadow' ? { counts: tally.counts, disagreements: tally.disagreements } : null,
      versions: [stable, rolledOut],
      routed: terms.mode === 'canary' ? { stable: routedStats(tally.routed.stable), rollout: routedStats(tally.routed.rollout) } : null,
    };
  }

  async function view(tenantId: string, policyModule: string): Promise<RolloutView> {
    const activations = await repo.listActivations(tenantId, policyModule);
    const last = activations.findLast((a) => a.rollout !== null);
    if (last === undefined) {
      if (activations.length === 0 && (await moduleUnknown(tenantId, policyModule))) {
        throw new PolicyRegistryError(404, PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
      }
      throw new PolicyRegistryError(404, PolicyErrorCode.ROLLOUT_NOT_FOUND, `policy module \`${policyModule}\` has had no rollout`);
    }
    const started = activations.find((a) => a.seq === last.rollout!.startedSeq)!;
    return viewOf(tenantId, started, last.kind === 'ROLLOUT_STARTED' ? null : last);
  }

  async function end(tenantId: string, policyModule: string, actorId: string, outcome: 'PROMOTED' | 'ABORTED', request: EndRequest = {}) {
    const at = now();
    const auditClaim = owedRecords.claim(at);
    const ended = await endRollout(repo, tenantId, {
      policyModule,
      outcome,
      reason: request.reason ?? DEFAULT_REASON[outcome],
      anomalyId: request.anomalyId ?? null,
      actorId,
      at,
      auditClaim,
      ...(request.rollout !== undefined ? { startedSeq: request.rollout } : {}),
    });
    if (!ended.ended) {
      if (ended.head === null && (await moduleUnknown(tenantId, policyModule))) {
        throw new PolicyRegistryError(404, PolicyErrorCode.MODULE_NOT_FOUND, `no policy module \`${policyModule}\``);
      }
      throw new PolicyRegistryError(409, PolicyErrorCode.ROLLOUT_NOT_RUNNING, `no rollout of policy module \`${policyModule}\` is running`);
    }
    const { activation } = ended;
    await deps.versions.activationChanged(tenantId, policyModule);
    if (ended.auditRecordId !== null) {
      await owedRecords.write(repo, tenantId, { kind: 'activation', policyModule, seq: activation.seq }, { recordId: ended.auditRecordId, claim: auditClaim }, activationEvent(activation));
    }
    return view(tenantId, policyModule);
  }

  return {
    view,
    promote: (tenantId, policyModule, actorId, request) => end(tenantId, policyModule, actorId, 'PROMOTED', request),
    abort: (tenantId, policyModule, actorId, request) => end(tenantId, policyModule, actorId, 'ABORTED', request),
  };
}
