import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import {
  storedBytesOf,
  type StoredWorkflowEvent,
  type UnfinishedWorkflow,
  type WorkflowEvent,
  type WorkflowListItem,
  type WorkflowListQuery,
  type WorkflowRepository,
  type WorkflowSummary,
} from '../../workflows/workflow-store.js';
import { StoreArgumentError } from '../store-argument-error.js';
import { assertTenantId, normaliseInstant } from '../store-rules.js';
import { assertUnfinishedPage, assertWorkflowEvents, assertWorkflowRecord, isWorkflowId, normaliseListQuery, normaliseSummary } from '../workflow-store-rules.js';
import { insertedBeforeDuplicate, isDuplicateKey } from './duplicate-key.js';
import {
  WORKFLOW_COLLECTIONS,
  workflowEventId,
  type WorkflowDocument,
  type WorkflowEventDocument,
  type WorkflowUsageDocument,
} from './mongo-workflow-collections.js';
import { createWorkflowUsageShares } from './mongo-workflow-usage.js';

/** The list's filter: the tenant (and status) lead, as in the indexes `tenant_started` and `tenant_status_started`. */
function listFilter(tenantId: string, query: WorkflowListQuery): Filter<WorkflowDocument> {
  const startedAt = {
    ...(query.startedFrom === undefined ? {} : { $gte: query.startedFrom }),
    ...(query.startedBefore === undefined ? {} : { $lt: query.startedBefore }),
  };
  return {
    tenantId,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(Object.keys(startedAt).length === 0 ? {} : { startedAt }),
    ...(query.policyModule === undefined ? {} : { policyModule: query.policyModule }),
    ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
  };
}

const LIST_PROJECTION = { policyModule: 1, workflow: 1, version: 1, status: 1, currentStep: 1, finalResult: 1, startedAt: 1, finishedAt: 1 } as const;

function listItemOf(doc: WorkflowDocument): WorkflowListItem {
  return {
    workflowId: doc._id,
    policyModule: doc.policyModule,
    workflow: doc.workflow,
    version: doc.version,
    // A document the backfill has not reached yet (written by a process of an earlier version).
    status: doc.status ?? 'RUNNING',
    currentStep: doc.currentStep ?? null,
    finalResult: doc.finalResult ?? null,
    startedAt: doc.startedAt,
    finishedAt: doc.finishedAt ?? null,
  };
}

/**
 * Keeps a summary over an older one (or none: a document stored before summaries). FerretDB may
 * still lose it to a concurrent write of the same document; the resume sweep finds such a summary
 * behind its log (see WorkflowResumer).
 */
export async function saveWorkflowSummary(workflows: Collection<WorkflowDocument>, filter: Filter<WorkflowDocument>, summary: WorkflowSummary): Promise<boolean> {
  const { status, currentStep, finalResult, seq } = summary;
  const saved = await workflows.updateOne(
    { ...filter, $or: [{ summarySeq: { $lt: seq } }, { summarySeq: { $exists: false } }] },
    { $set: { status, currentStep, finalResult, summarySeq: seq } },
  );
  return saved.modifiedCount === 1;
}

function eventOf(doc: WorkflowEventDocument): StoredWorkflowEvent {
  return { sequence: doc.sequence, eventType: doc.eventType, payload: JSON.parse(doc.payload) as Record<string, unknown>, occurredAt: doc.occurredAt };
}

/**
 * Appends are ordered inserts whose `_id` (and the unique (tenant, workflow, sequence) index)
 * refuse a sequence that exists: the count before the duplicate is what this writer stored, as for
 * the audit chain. The predecessor check is an `_id` lookup, served from an index everywhere.
 * What a write stored is then counted in this writer's share of the tenant's usage (a second
 * write: a process dying between the two leaves it uncounted).
 */
export function createMongoWorkflowRepository(db: Db, writer: string = randomUUID()): WorkflowRepository {
  const workflows = db.collection<WorkflowDocument>(WORKFLOW_COLLECTIONS.workflows);
  const events = db.collection<WorkflowEventDocument>(WORKFLOW_COLLECTIONS.events);
  const usage = createWorkflowUsageShares(db.collection<WorkflowUsageDocument>(WORKFLOW_COLLECTIONS.usage), writer);

  return {
    async create(tenantId, record) {
      assertTenantId(tenantId);
      assertWorkflowRecord(record);
      const context = JSON.stringify(record.context);
      try {
        await workflows.insertOne({
          _id: record.workflowId,
          tenantId,
          policyModule: record.policyModule,
          version: record.version,
          workflow: record.workflow,
          context,
          actorId: record.actorId,
          startedAt: normaliseInstant(record.startedAt, 'startedAt'),
          finishedAt: null,
          status: 'RUNNING',
          currentStep: null,
          finalResult: null,
          summarySeq: 0,
        });
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
      await usage.add(tenantId, { started: 1, storedBytes: storedBytesOf(context) });
      return true;
    },

    async get(tenantId, workflowId) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return null;
      const doc = await workflows.findOne({ _id: workflowId });
      if (doc === null || doc.tenantId !== tenantId) return null;
      return {
        workflowId: doc._id,
        policyModule: doc.policyModule,
        version: doc.version,
        workflow: doc.workflow,
        context: JSON.parse(doc.context) as Record<string, unknown>,
        actorId: doc.actorId,
        startedAt: doc.startedAt,
      };
    },

    async ownerOf(workflowId) {
      if (!isWorkflowId(workflowId)) return null;
      return (await workflows.findOne({ _id: workflowId }, { projection: { tenantId: 1 } }))?.tenantId ?? null;
    },

    async append(tenantId, workflowId, list) {
      assertTenantId(tenantId);
      if (list.length === 0) return 0;
      assertWorkflowEvents(list);
      const owner = isWorkflowId(workflowId) ? await workflows.findOne({ _id: workflowId }, { projection: { tenantId: 1 } }) : null;
      if (owner === null || owner.tenantId !== tenantId) throw new StoreArgumentError(`workflow \`${workflowId}\` does not exist`);
      const first = list[0]!;
      if (first.sequence > 1 && (await events.findOne({ _id: workflowEventId(tenantId, workflowId, first.sequence - 1) })) === null) {
        throw new StoreArgumentError(`event ${first.sequence - 1} of workflow \`${workflowId}\` does not exist`);
      }
      const documents = list.map((event) => ({
        _id: workflowEventId(tenantId, workflowId, event.sequence),
        tenantId,
        workflowId,
        sequence: event.sequence,
        eventType: event.eventType,
        payload: JSON.stringify(event.payload),
        occurredAt: normaliseInstant(event.occurredAt, 'occurredAt'),
      }));
      let inserted: number;
      try {
        await events.insertMany(documents, { ordered: true });
        inserted = documents.length;
      } catch (error) {
        inserted = insertedBeforeDuplicate(error, documents.length);
      }
      // Counted in the background: an append does not wait for the counter (starts do, and reads add what is on its way).
      if (inserted > 0) void usage.add(tenantId, { storedBytes: documents.slice(0, inserted).reduce((sum, d) => sum + storedBytesOf(d.payload), 0) });
      return inserted;
    },

    async events(tenantId, workflowId, fromSeq, limit) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return [];
      const docs = await events
        .find({ tenantId, workflowId, sequence: { $gte: Math.max(1, fromSeq) } })
        .sort({ sequence: 1 })
        .limit(limit)
        .toArray();
      return docs.map(eventOf);
    },

    async lastEvent(tenantId, workflowId) {
      assertTenantId(tenantId);
      if (!isWorkflowId(workflowId)) return null;
      const [doc] = await events.find({ tenantId, workflowId }).sort({ sequence: -1 }).limit(1).toArray();
      return doc === undefined ? null : eventOf(doc);
    },

    async markFinished(tenantId, workflowId, finishedAt, summary) {
      assertTenantId(tenantId);
      const at = normaliseInstant(finishedAt, 'finishedAt');
      const normalised = summary === undefined ? undefined : normaliseSummary(summary);
      if (!isWorkflowId(workflowId)) return;
      if (normalised !== undefined) {
        // The mark and the ended log's summary in one update: FerretDB rewrites a whole document per
        // update, so a concurrent older summary either lands before it (and is overwritten) or takes
        // the mark with it (and the resume sweep marks the workflow again, with its summary).
        const { status, currentStep, finalResult, seq } = normalised;
        const marked = await workflows.updateOne({ _id: workflowId, tenantId, finishedAt: null }, { $set: { finishedAt: at, status, currentStep, finalResult, summarySeq: seq } });
        if (marked.modifiedCount === 1) {
          await usage.add(tenantId, { finished: 1 });
          return;
        }
        // Marked before: the summary alone, over an older one.
        await saveWorkflowSummary(workflows, { _id: workflowId, tenantId }, normalised);
        return;
      }
      // `finishedAt: null` also matches a document stored before the field existed; the first mark stays.
      const marked = await workflows.updateOne({ _id: workflowId, tenantId, finishedAt: null }, { $set: { finishedAt: at } });
      // Exact on MongoDB; on FerretDB two marks racing for one workflow could both count.
      if (marked.modifiedCount === 1) await usage.add(tenantId, { finished: 1 });
    },

    async saveSummary(tenantId, workflowId, summary) {
      assertTenantId(tenantId);
      const normalised = normaliseSummary(summary);
      if (!isWorkflowId(workflowId)) return false;
      return saveWorkflowSummary(workflows, { _id: workflowId, tenantId }, normalised);
    },

    async list(tenantId, query) {
      assertTenantId(tenantId);
      const checked = normaliseListQuery(query);
      const filter = listFilter(tenantId, checked);
      const [docs, total] = await Promise.all([
        workflows.find(filter, { projection: LIST_PROJECTION }).sort({ startedAt: -1, _id: -1 }).skip(checked.offset).limit(checked.limit).toArray(),
        workflows.countDocuments(filter),
      ]);
      return { items: docs.map(listItemOf), total };
    },

    async listUnfinished(afterWorkflowId, limit) {
      assertUnfinishedPage(afterWorkflowId, limit);
      const docs = await workflows
        .find({ finishedAt: null, ...(afterWorkflowId === null ? {} : { _id: { $gt: afterWorkflowId } }) }, { projection: { tenantId: 1, summarySeq: 1 } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((doc): UnfinishedWorkflow => ({ tenantId: doc.tenantId, workflowId: doc._id, summarySeq: doc.summarySeq ?? 0 }));
    },

    async usage(tenantId) {
      assertTenantId(tenantId);
      return usage.read(tenantId);
    },
  };
}
