import type { AuditChainWriter, AuditEvent } from '../audit/index.js';
import type { AuditChainRepository, OwedRegistryAudit, PolicyRepository } from '../store/index.js';
import { deployedEvent, rolledBackEvent } from './policy-events.js';
import { claimFrom, hasTimeToWrite, type RegistryAuditLease } from './registry-audit-lease.js';

/**
 * Writes the audit records that deploys and rollbacks owe when their own write did not happen
 * (the append failed, or the process stopped after storing the entry). The registry's log is the
 * outbox: every version and rollback activation is stored owing its record, claimed by the writer
 * that stored it; the follower takes over the entries whose claim ended.
 *
 * Per entry: claim it (of concurrent claimers in any process one wins), ask the chain whether the
 * record is already there (written, then its writer stopped before marking), append it when not —
 * made of what is stored, with the entry's record id — and mark the entry audited. A failure leaves
 * the entry owed under this follower's claim; the next pass after the claim ends tries again.
 */

const DEFAULT_FOLLOW_BATCH_SIZE = 100;

export interface RegistryAuditFollowerDeps {
  policies: PolicyRepository;
  /** The chain, asked whether an owed record is already in it. */
  auditRecords: Pick<AuditChainRepository, 'findById'>;
  audit: Pick<AuditChainWriter, 'append'>;
  lease: RegistryAuditLease;
  /** Owed entries settled per pass. Default 100. */
  batchSize?: number;
  now?: () => Date;
  /** A pass (owed null) or one entry failed; the entry is tried again once its claim ends. */
  onError?: (error: unknown, owed: OwedRegistryAudit | null) => void;
  /** The follower settled an entry: `written` false when the record was already in the chain. */
  onSettled?: (owed: OwedRegistryAudit, written: boolean) => void;
}

export interface FollowPass {
  /** Owed entries whose claim had ended. */
  owed: number;
  /** Records appended. */
  written: number;
  /** Records found in the chain already (their entry only needed its mark). */
  found: number;
  /** Entries another follower claimed first, or left for a later pass. */
  skipped: number;
  failed: number;
}

export interface RegistryAuditFollower {
  /** One pass over the owed entries whose claim ended. Rejects only when they cannot be listed. */
  followOnce(): Promise<FollowPass>;
  /** Runs a pass now, then one `intervalMs` after each pass ends, until stop(). */
  start(intervalMs: number): void;
  /** Ends the schedule; resolves once a running pass is done. */
  stop(): Promise<void>;
}

export function createRegistryAuditFollower(deps: RegistryAuditFollowerDeps): RegistryAuditFollower {
  const { policies, lease } = deps;
  const now = deps.now ?? (() => new Date());
  const batchSize = deps.batchSize ?? DEFAULT_FOLLOW_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a positive integer');

  /** The record as the store has it now: a deploy never activated is recorded as not activated. */
  async function owedEvent({ tenantId, entry }: OwedRegistryAudit): Promise<AuditEvent> {
    const activations = await policies.listActivations(tenantId, entry.policyModule);
    if (entry.kind === 'version') {
      const version = await policies.getVersion(tenantId, entry.policyModule, entry.version);
      if (version === null) throw new Error(`owed audit record of a missing version ${entry.policyModule}@${entry.version}`);
      const activation = activations.find((a) => a.kind === 'DEPLOY' && a.version === entry.version) ?? null;
      return deployedEvent(version, activation);
    }
    const activation = activations.find((a) => a.seq === entry.seq);
    if (activation === undefined) throw new Error(`owed audit record of a missing activation ${entry.policyModule} #${entry.seq}`);
    return rolledBackEvent(activation);
  }

  async function settle(owed: OwedRegistryAudit): Promise<'written' | 'found' | 'skipped'> {
    const at = now();
    const claim = claimFrom(lease, at);
    if (!(await policies.claimAudit(owed.tenantId, owed.entry, claim, at.toISOString()))) return 'skipped';
    const stored = await deps.auditRecords.findById(owed.tenantId, owed.recordId);
    if (stored === null) {
      const event = await owedEvent(owed);
      // As for the deploying process: a claim too far gone is left for the next pass.
      if (!hasTimeToWrite(lease, claim, now())) return 'skipped';
      await deps.audit.append(owed.tenantId, event, { id: owed.recordId });
    }
    await policies.markAudited(owed.tenantId, owed.entry, now().toISOString());
    deps.onSettled?.(owed, stored === null);
    return stored === null ? 'written' : 'found';
  }

  async function followOnce(): Promise<FollowPass> {
    const owed = await policies.owedAudits(now().toISOString(), batchSize);
    const pass: FollowPass = { owed: owed.length, written: 0, found: 0, skipped: 0, failed: 0 };
    // One at a time: owed entries are rare, and the pass must not crowd the API's own store traffic.
    for (const entry of owed) {
      try {
        pass[await settle(entry)] += 1;
      } catch (error) {
        pass.failed += 1;
        deps.onError?.(error, entry);
      }
    }
    return pass;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let started = false;
  let stopped = false;

  function runPass(intervalMs: number): void {
    running = followOnce().then(
      () => undefined,
      (error: unknown) => deps.onError?.(error, null),
    );
    void running.then(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(() => runPass(intervalMs), intervalMs);
      timer.unref();
    });
  }

  return {
    followOnce,

    start(intervalMs) {
      if (!Number.isFinite(intervalMs) || intervalMs < 1) throw new RangeError('intervalMs must be at least 1');
      if (started) throw new Error('the registry audit follower is already started');
      started = true;
      runPass(intervalMs);
    },

    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
