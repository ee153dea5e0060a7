import type { Database } from 'better-sqlite3';
import type { AnomalyStatus, AnomalyType } from '../../anomalies/anomaly-enums.js';
import type {
  AnomalyRepository,
  AnomalyState,
  AnomalyTransition,
  AnomalyVerification,
  AuditedAnomalyEntry,
  StoredAnomaly,
} from '../../anomalies/anomaly-store.js';
import type { OwedAudit } from '../../audit/audit-outbox-store.js';
import {
  anomalyState,
  assertAnomalyKey,
  assertAuditedEntry,
  assertListQuery,
  assertObservation,
  assertOpenQuery,
  assertStoredAnomaly,
  assertTransition,
  assertTransitionExtends,
  assertVerification,
  compareAuditedEntries,
  isAnomalyId,
} from '../anomaly-store-rules.js';
import { auditOutboxOfParts, normaliseOwedAudit } from '../audit-outbox-rules.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { owedAuditValues, sqliteAuditOutbox } from './sqlite-audit-outbox.js';

interface AnomalyRow {
  id: string;
  type: string;
  policy_module: string;
  policy_function: string;
  version: number;
  occurrence: number;
  detected_at: string;
  observation: string;
  verification: string | null;
  status_seq: number | null;
  to_status: string | null;
  status_changed_at: string | null;
}

interface TransitionRow {
  anomaly_id: string;
  seq: number;
  from_status: string;
  to_status: string;
  note: string | null;
  actor_id: string;
  occurred_at: string;
  verification: string | null;
  request_ref: string | null;
}

const TRANSITION_COLUMNS = 'anomaly_id, seq, from_status, to_status, note, actor_id, occurred_at, verification, request_ref';

/** Every anomaly read comes with its newest transition (its status), joined in the same query. */
const SELECT_STATE = `
  SELECT a.id, a.type, a.policy_module, a.policy_function, a.version, a.occurrence, a.detected_at, a.observation,
         a.verification, t.seq AS status_seq, t.to_status, t.occurred_at AS status_changed_at
  FROM anomalies a
  LEFT JOIN anomaly_transitions t ON t.tenant_id = a.tenant_id AND t.anomaly_id = a.id
    AND t.seq = (SELECT max(seq) FROM anomaly_transitions m WHERE m.tenant_id = a.tenant_id AND m.anomaly_id = a.id)`;

type StoredAnomalyRow = Pick<AnomalyRow, 'id' | 'type' | 'policy_module' | 'policy_function' | 'version' | 'occurrence' | 'detected_at' | 'observation' | 'verification'>;

function storedAnomalyOf(row: StoredAnomalyRow): StoredAnomaly {
  return {
    id: row.id,
    type: row.type as AnomalyType,
    policyModule: row.policy_module,
    policyFunction: row.policy_function,
    version: row.version,
    occurrence: row.occurrence,
    detectedAt: row.detected_at,
    observation: JSON.parse(row.observation) as StoredAnomaly['observation'],
    verification: row.verification === null ? null : (JSON.parse(row.verification) as StoredAnomaly['verification']),
  };
}

function stateOf(row: AnomalyRow): AnomalyState {
  return anomalyState(
    storedAnomalyOf(row),
    row.status_seq === null ? null : { seq: row.status_seq, to: row.to_status as AnomalyStatus, occurredAt: row.status_changed_at! },
  );
}

function transitionOf(row: TransitionRow): AnomalyTransition {
  return {
    anomalyId: row.anomaly_id,
    seq: row.seq,
    from: row.from_status as AnomalyStatus,
    to: row.to_status as AnomalyStatus,
    note: row.note,
    actorId: row.actor_id,
    occurredAt: row.occurred_at,
    ...(row.verification === null ? {} : { verification: JSON.parse(row.verification) as AnomalyVerification }),
    ...(row.request_ref === null ? {} : { requestRef: row.request_ref }),
  };
}

/** Inserts decide every race (unique occurrence, unique transition seq) inside SQLite's write lock. */
export function createSqliteAnomalyRepository(db: Database): AnomalyRepository {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO anomalies
     (tenant_id, id, type, policy_module, policy_function, version, occurrence, detected_at, observation, verification,
      detected_observation, audit_record_id, audit_claimed_by, audit_claimed_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const asDetected = db.prepare<[string, string], StoredAnomalyRow>(
    `SELECT id, type, policy_module, policy_function, version, occurrence, detected_at, detected_observation AS observation, NULL AS verification
     FROM anomalies WHERE tenant_id = ? AND id = ? AND detected_observation IS NOT NULL`,
  );
  const byId = db.prepare<[string, string], AnomalyRow>(`${SELECT_STATE} WHERE a.tenant_id = ? AND a.id = ?`);
  const latest = db.prepare<[string, string, string, string, number], AnomalyRow>(
    `${SELECT_STATE} WHERE a.tenant_id = ? AND a.type = ? AND a.policy_module = ? AND a.policy_function = ? AND a.version = ?
     ORDER BY a.occurrence DESC LIMIT 1`,
  );
  const page = (typed: boolean) =>
    db.prepare<unknown[], AnomalyRow>(
      `${SELECT_STATE} WHERE a.tenant_id = ? ${typed ? 'AND a.type = ?' : ''} AND a.detected_at >= ?
       ORDER BY a.detected_at DESC, a.id ASC LIMIT ? OFFSET ?`,
    );
  const count = (typed: boolean) =>
    db.prepare<unknown[], { total: number }>(`SELECT count(*) AS total FROM anomalies WHERE tenant_id = ? ${typed ? 'AND type = ?' : ''} AND detected_at >= ?`);
  const pages = { typed: page(true), all: page(false) };
  const counts = { typed: count(true), all: count(false) };
  // Served by the partial index anomalies_open_by_observed_at (migration 14).
  const openObservedBefore = db.prepare<[string, string, number], AnomalyRow>(
    `${SELECT_STATE} WHERE a.tenant_id = ? AND a.status = 'OPEN' AND a.observed_at < ? ORDER BY a.observed_at, a.id LIMIT ?`,
  );
  const setObservation = db.prepare('UPDATE anomalies SET observation = ? WHERE tenant_id = ? AND id = ?');
  const setVerification = db.prepare('UPDATE anomalies SET verification = ? WHERE tenant_id = ? AND id = ?');
  const exists = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM anomalies WHERE tenant_id = ? AND id = ?');
  const transitionAt = db.prepare<[string, string, number], TransitionRow>(
    `SELECT ${TRANSITION_COLUMNS} FROM anomaly_transitions WHERE tenant_id = ? AND anomaly_id = ? AND seq = ?`,
  );
  const insertTransition = db.prepare(
    `INSERT INTO anomaly_transitions (tenant_id, ${TRANSITION_COLUMNS}, audit_record_id, audit_claimed_by, audit_claimed_until)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const transitions = db.prepare<[string, string], TransitionRow>(
    `SELECT ${TRANSITION_COLUMNS} FROM anomaly_transitions WHERE tenant_id = ? AND anomaly_id = ? ORDER BY seq`,
  );
  const outboxes = {
    detection: sqliteAuditOutbox<AuditedAnomalyEntry>(db, {
      table: 'anomalies',
      key: ['id'],
      entryOf: ([anomalyId]) => ({ kind: 'detection', anomalyId: anomalyId as string }),
      keyOf: (entry) => [entry.anomalyId],
    }),
    transition: sqliteAuditOutbox<AuditedAnomalyEntry>(db, {
      table: 'anomaly_transitions',
      key: ['anomaly_id', 'seq'],
      entryOf: ([anomalyId, seq]) => ({ kind: 'transition', anomalyId: anomalyId as string, seq: seq as number }),
      keyOf: (entry) => [entry.anomalyId, entry.kind === 'transition' ? entry.seq : 0],
    }),
  };

  const update = db.transaction((tenantId: string, id: string, observation: string | undefined, verification: string | undefined): boolean => {
    if (exists.get(tenantId, id) === undefined) return false;
    if (observation !== undefined) setObservation.run(observation, tenantId, id);
    if (verification !== undefined) setVerification.run(verification, tenantId, id);
    return true;
  });

  const append = db.transaction((tenantId: string, t: AnomalyTransition, owed: OwedAudit | null): boolean => {
    if (transitionAt.get(tenantId, t.anomalyId, t.seq) !== undefined) return false;
    const predecessor = t.seq > 1 ? transitionAt.get(tenantId, t.anomalyId, t.seq - 1) : undefined;
    assertTransitionExtends(t, exists.get(tenantId, t.anomalyId) !== undefined, predecessor === undefined ? null : transitionOf(predecessor));
    insertTransition.run(
      tenantId, t.anomalyId, t.seq, t.from, t.to, t.note, t.actorId, normaliseInstant(t.occurredAt, 'occurredAt'),
      t.verification === undefined ? null : JSON.stringify(t.verification), t.requestRef ?? null, ...owedAuditValues(owed),
    );
    return true;
  });

  return {
    async insert(tenantId, anomaly, owedAudit) {
      assertTenantId(tenantId);
      assertStoredAnomaly(anomaly);
      const observation = JSON.stringify(anomaly.observation);
      const owed = owedAudit === undefined ? null : normaliseOwedAudit(owedAudit);
      const result = insert.run(
        tenantId, anomaly.id, anomaly.type, anomaly.policyModule, anomaly.policyFunction, anomaly.version, anomaly.occurrence,
        normaliseInstant(anomaly.detectedAt, 'detectedAt'), observation,
        anomaly.verification === null ? null : JSON.stringify(anomaly.verification), observation, ...owedAuditValues(owed),
      );
      return result.changes === 1;
    },

    async asDetected(tenantId, id) {
      assertTenantId(tenantId);
      if (!isAnomalyId(id)) return null;
      const row = asDetected.get(tenantId, id);
      return row === undefined ? null : storedAnomalyOf(row);
    },

    async latest(tenantId, key) {
      assertTenantId(tenantId);
      assertAnomalyKey(key);
      const row = latest.get(tenantId, key.type, key.policyModule, key.policyFunction, key.version);
      return row === undefined ? null : stateOf(row);
    },

    async get(tenantId, id) {
      assertTenantId(tenantId);
      if (!isAnomalyId(id)) return null;
      const row = byId.get(tenantId, id);
      return row === undefined ? null : stateOf(row);
    },

    async list(tenantId, query) {
      assertTenantId(tenantId);
      assertListQuery(query);
      const from = normaliseInstant(query.detectedFrom, 'detectedFrom');
      const filter = query.type === undefined ? [tenantId, from] : [tenantId, query.type, from];
      const which = query.type === undefined ? 'all' : 'typed';
      const items = pages[which].all(...filter, query.limit, query.offset).map(stateOf);
      return { items, total: counts[which].get(...filter)!.total };
    },

    async openObservedBefore(tenantId, query) {
      assertTenantId(tenantId);
      assertOpenQuery(query);
      return openObservedBefore.all(tenantId, normaliseInstant(query.observedBefore, 'observedBefore'), query.limit).map(stateOf);
    },

    async update(tenantId, id, change) {
      assertTenantId(tenantId);
      if (change.observation !== undefined) assertObservation(change.observation);
      if (change.verification !== undefined) assertVerification(change.verification);
      if (!isAnomalyId(id)) return false;
      return update.immediate(
        tenantId,
        id,
        change.observation === undefined ? undefined : JSON.stringify(change.observation),
        change.verification === undefined ? undefined : JSON.stringify(change.verification),
      );
    },

    async appendTransition(tenantId, transition, owedAudit) {
      assertTenantId(tenantId);
      assertTransition(transition);
      return append.immediate(tenantId, transition, owedAudit === undefined ? null : normaliseOwedAudit(owedAudit));
    },

    async transitions(tenantId, anomalyId) {
      assertTenantId(tenantId);
      if (!isAnomalyId(anomalyId)) return [];
      return transitions.all(tenantId, anomalyId).map(transitionOf);
    },

    ...auditOutboxOfParts(outboxes, { assert: assertAuditedEntry, compare: compareAuditedEntries }),
  };
}
