import type { Db, Filter } from 'mongodb';
import type { OwedAudit } from '../../audit/audit-outbox-store.js';
import type {
  AuditedRegistryEntry,
  PolicyActivation,
  PolicyModuleVersion,
  PolicyRepository,
  PolicyVersionEntry,
  RunningRollout,
} from '../../policies/policy-store.js';
import { auditOutboxOfParts } from '../audit-outbox-rules.js';
import {
  assertActivation,
  assertActivationExtends,
  assertAuditedEntry,
  assertModuleVersion,
  assertPage,
  assertPolicyName,
  assertRuleQuery,
  assertRunningRolloutQuery,
  assertVersionExtends,
  compareRegistryEntries,
} from '../policy-store-rules.js';
import { assertTenantId, compareText } from '../store-rules.js';
import { contiguousHead } from './contiguous-head.js';
import { mongoAuditOutbox, owedAuditFields } from './mongo-audit-outbox.js';
import {
  POLICY_COLLECTIONS,
  policyDocumentId,
  type PolicyActivationDocument,
  type PolicyVersionDocument,
} from './mongo-policy-collections.js';
import { isDuplicateKey } from './duplicate-key.js';
import { createMongoRuleList } from './mongo-policy-rule-list.js';
import { createRuleCounts } from './mongo-rule-counts.js';

/** A detached copy with exactly the port's fields (a stored document carries more). */
function copyVersion(v: PolicyModuleVersion): PolicyModuleVersion {
  return {
    policyModule: v.policyModule,
    version: v.version,
    source: v.source,
    locale: v.locale,
    sourceHash: v.sourceHash,
    functions: v.functions.map((f) => ({
      name: f.name,
      params: f.params.map((p) => ({ name: p.name, type: p.type })),
      returnType: f.returnType,
    })),
    actorId: v.actorId,
    createdAt: v.createdAt,
  };
}

/** A stored activation as the domain reads it (documents stored before rollouts have no `rollout`). */
function copyActivation(a: Omit<PolicyActivation, 'rollout'> & { rollout?: PolicyActivation['rollout'] | undefined }): PolicyActivation {
  return {
    policyModule: a.policyModule,
    seq: a.seq,
    kind: a.kind,
    version: a.version,
    previousVersion: a.previousVersion ?? null,
    highestDeployed: a.highestDeployed,
    actorId: a.actorId,
    occurredAt: a.occurredAt,
    rollout: a.rollout == null ? null : { ...a.rollout },
  };
}

function versionDocument(tenantId: string, v: PolicyModuleVersion, owed: OwedAudit | undefined): PolicyVersionDocument {
  return {
    _id: policyDocumentId(tenantId, v.policyModule, v.version),
    tenantId,
    ...copyVersion(v),
    ruleCount: v.functions.length,
    ...owedAuditFields(owed),
  };
}

function activationDocument(tenantId: string, a: PolicyActivation, owed: OwedAudit | undefined): PolicyActivationDocument {
  return { _id: policyDocumentId(tenantId, a.policyModule, a.seq), tenantId, ...copyActivation(a), ...owedAuditFields(owed) };
}

function registryEntryId(tenantId: string, entry: AuditedRegistryEntry): string {
  return policyDocumentId(tenantId, entry.policyModule, entry.kind === 'version' ? entry.version : entry.seq);
}

/**
 * Insert-only, so every write is one atomic insert on backends without transactions or atomic
 * read-modify-write updates (FerretDB 1.24 loses concurrent updates of one document): the unique
 * `_id` decides which of two racing writers gets a version number or an activation seq. Stored
 * documents never change, so a predecessor read before an insert stays true.
 */
export function createMongoPolicyRepository(db: Db): PolicyRepository {
  const versions = db.collection<PolicyVersionDocument>(POLICY_COLLECTIONS.versions);
  const activations = db.collection<PolicyActivationDocument>(POLICY_COLLECTIONS.activations);
  const outboxes = {
    version: mongoAuditOutbox<AuditedRegistryEntry>(db, {
      entries: POLICY_COLLECTIONS.versions,
      claims: POLICY_COLLECTIONS.auditClaims,
      entryFields: ['policyModule', 'version'],
      entryOf: (doc) => ({ kind: 'version', policyModule: doc.policyModule as string, version: doc.version as number }),
      documentId: registryEntryId,
    }),
    activation: mongoAuditOutbox<AuditedRegistryEntry>(db, {
      entries: POLICY_COLLECTIONS.activations,
      claims: POLICY_COLLECTIONS.auditClaims,
      entryFields: ['policyModule', 'seq'],
      entryOf: (doc) => ({ kind: 'activation', policyModule: doc.policyModule as string, seq: doc.seq as number }),
      documentId: registryEntryId,
    }),
  };
  /** Per `<tenant>:<module>`: highest version / activation seen to exist, where head searches start. */
  const knownVersion = new Map<string, number>();
  const knownHead = new Map<string, PolicyActivation>();
  const moduleKey = (tenantId: string, policyModule: string) => `${tenantId}:${policyModule}`;

  function rememberVersion(tenantId: string, policyModule: string, version: number): void {
    const key = moduleKey(tenantId, policyModule);
    if (version > (knownVersion.get(key) ?? 0)) knownVersion.set(key, version);
  }

  function rememberHead(tenantId: string, activation: PolicyActivation): void {
    const key = moduleKey(tenantId, activation.policyModule);
    if (activation.seq > (knownHead.get(key)?.seq ?? 0)) knownHead.set(key, activation);
  }

  async function versionExists(tenantId: string, policyModule: string, version: number): Promise<boolean> {
    const doc = await versions.findOne({ _id: policyDocumentId(tenantId, policyModule, version) }, { projection: { _id: 1 } });
    return doc !== null;
  }

  async function activationAt(tenantId: string, policyModule: string, seq: number): Promise<PolicyActivation | null> {
    const doc = await activations.findOne({ _id: policyDocumentId(tenantId, policyModule, seq) });
    return doc === null ? null : copyActivation(doc);
  }

  async function headActivation(tenantId: string, policyModule: string): Promise<PolicyActivation | null> {
    const cached = knownHead.get(moduleKey(tenantId, policyModule));
    const { head, value } = await contiguousHead((n) => activationAt(tenantId, policyModule, n), cached?.seq ?? 0);
    if (head === 0) return null;
    const activation = value ?? cached!;
    rememberHead(tenantId, activation);
    return activation;
  }

  const ruleCounts = createRuleCounts(versions);
  const listRules = createMongoRuleList({
    versions,
    ruleCounts,
    activeVersion: async (tenantId, policyModule) => (await headActivation(tenantId, policyModule))?.version ?? null,
  });

  return {
    async latestVersion(tenantId, policyModule) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      const known = knownVersion.get(moduleKey(tenantId, policyModule)) ?? 0;
      const { head } = await contiguousHead(
        async (n) => ((await versionExists(tenantId, policyModule, n)) ? true : null),
        known,
      );
      rememberVersion(tenantId, policyModule, head);
      return head;
    },

    async insertVersion(tenantId, version, owedAudit) {
      assertTenantId(tenantId);
      assertModuleVersion(version);
      const { policyModule } = version;
      const predecessor = version.version > 1 && (await versionExists(tenantId, policyModule, version.version - 1));
      assertVersionExtends(tenantId, version, predecessor);
      try {
        await versions.insertOne(versionDocument(tenantId, version, owedAudit));
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
        rememberVersion(tenantId, policyModule, version.version);
        return false;
      }
      rememberVersion(tenantId, policyModule, version.version);
      return true;
    },

    async getVersion(tenantId, policyModule, version) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      if (!Number.isSafeInteger(version) || version < 1) return null;
      const doc = await versions.findOne({ _id: policyDocumentId(tenantId, policyModule, version) });
      return doc === null ? null : copyVersion(doc);
    },

    async listVersions(tenantId, policyModule, page) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      assertPage(page);
      const filter = { tenantId, policyModule };
      const projection = { _id: 1, policyModule: 1, version: 1, locale: 1, sourceHash: 1, ruleCount: 1, actorId: 1, createdAt: 1 };
      const [docs, total] = await Promise.all([
        page.limit === 0 ? [] : versions.find(filter, { projection, sort: { version: 1 }, skip: page.offset, limit: page.limit }).toArray(),
        versions.countDocuments(filter),
      ]);
      const counts = await ruleCounts(docs);
      const items: PolicyVersionEntry[] = docs.map((doc) => ({
        policyModule: doc.policyModule,
        version: doc.version,
        locale: doc.locale,
        sourceHash: doc.sourceHash,
        ruleCount: counts.get(doc._id) ?? 0,
        actorId: doc.actorId,
        createdAt: doc.createdAt,
      }));
      return { items, total };
    },

    async headActivation(tenantId, policyModule) {
      assertTenantId(tenantId);
      assertPolicyName(policyModule, 'policyModule');
      return headActivation(tenantId, policyModule);
    },

    async appendActivation(tenantId, activation, owedAudit) {
      assertTenantId(tenantId);
      assertActivation(activation);
      const { policyModule, seq } = activation;
      const predecessor = seq > 1 ? await activationAt(tenantId, policyModule, seq - 1) : null;
      const exists = activation.version > 0 && (await versionExists(tenantId, policyModule, activation.version));
      assertActivationExtends(tenantId, activation, predecessor, exists);
      try {
        await activations.insertOne(activationDocument(tenantId, activation, owedAudit));
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      rememberHead(tenantId, copyActivation(activation));
      return true;
    },

    async listActivations(tenantId, policyModule) {
      assertTenantId(tenantId);
      const filter: Filter<PolicyActivationDocument> = { tenantId };
      if (policyModule !== undefined) {
        assertPolicyName(policyModule, 'policyModule');
        filter.policyModule = policyModule;
      }
      const docs = await activations.find(filter).toArray();
      return docs.map(copyActivation).sort((a, b) => compareText(a.policyModule, b.policyModule) || a.seq - b.seq);
    },

    async listRules(tenantId, query) {
      assertTenantId(tenantId);
      assertRuleQuery(query);
      return listRules(tenantId, query);
    },

    async countVersions(tenantId) {
      assertTenantId(tenantId);
      return versions.countDocuments({ tenantId });
    },

    async runningRollouts(query) {
      assertRunningRolloutQuery(query);
      const running: RunningRollout[] = [];
      // Rollouts started (ended ones too: a module has many), page by page, keeping those still at
      // their module's head. The cursor holds the seq: a page may end inside a module's starts.
      let after = { ...(query.after ?? { tenantId: '', policyModule: '' }), seq: query.after === undefined ? 0 : Number.MAX_SAFE_INTEGER };
      for (;;) {
        const started = await activations
          .find(
            {
              kind: 'ROLLOUT_STARTED',
              $or: [
                { tenantId: { $gt: after.tenantId } },
                { tenantId: after.tenantId, policyModule: { $gt: after.policyModule } },
                { tenantId: after.tenantId, policyModule: after.policyModule, seq: { $gt: after.seq } },
              ],
            },
            { sort: { tenantId: 1, policyModule: 1, seq: 1 }, limit: query.limit },
          )
          .toArray();
        for (const doc of started) {
          const next = await activations.findOne({ _id: policyDocumentId(doc.tenantId, doc.policyModule, doc.seq + 1) }, { projection: { _id: 1 } });
          if (next === null) running.push({ tenantId: doc.tenantId, activation: copyActivation(doc) });
          if (running.length === query.limit) return running;
        }
        if (started.length < query.limit) return running;
        const last = started.at(-1)!;
        after = { tenantId: last.tenantId, policyModule: last.policyModule, seq: last.seq };
      }
    },

    ...auditOutboxOfParts(outboxes, { assert: assertAuditedEntry, compare: compareRegistryEntries }),
  };
}
