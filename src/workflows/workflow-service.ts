import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { describeSchemaProblem, listNames, type BodyShape } from '../errors/index.js';
import { MAX_NAME_LENGTH, nameSchema, pageView, type Page } from '../kernel/index.js';
import { PolicyRegistryError, type VersionResolver } from '../policies/index.js';
import type { WorkflowSignature } from '../language/index.js';
import type { WorkflowDefinitions } from './workflow-definitions.js';
import { WorkflowError, WorkflowErrorCode } from './workflow-errors.js';
import { isTerminalEvent, WorkflowEventType as E, type WorkflowEventBody } from './workflow-events.js';
import { isTerminal, replay, type StepState, type WorkflowState, type WorkflowStatus } from './workflow-replay.js';
import { storedBytesOf, type WorkflowListItem, type WorkflowListQuery, type WorkflowRecord, type WorkflowRepository } from './workflow-store.js';
import { endedSummary, storeSummary, summaryOf } from './workflow-summary.js';

/**
 * The most events one read returns (a page of the log): some 50 KB of JSON, built on the API's
 * event loop for one rate-limit point. A client asks again from the last sequence + 1 until `[]`.
 */
export const WORKFLOW_EVENTS_PAGE = 1_000;
/** The list's page sizes, as the anomaly and policy lists have them, and its last page number (keeps page × size a safe offset). */
export const WORKFLOW_PAGE_DEFAULT_SIZE = 20;
export const WORKFLOW_PAGE_MAX_SIZE = 100;
export const WORKFLOW_PAGE_MAX_PAGE = 1_000_000;
const MAX_ROUNDS = 100;

export interface WorkflowCaller {
  tenantId: string;
  actorId: string;
}

/** A workflow as GET answers it: its state rebuilt by replaying its log. */
export interface WorkflowView {
  workflowId: string;
  policyModule: string;
  version: number;
  workflow: string;
  status: WorkflowStatus;
  currentStep: string | null;
  steps: StepState[];
  finalResult: boolean | null;
  error: string | null;
  startedAt: string;
}

/** An event as the interface shows it. */
export interface WorkflowEventView {
  sequence: number;
  workflowId: string;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt: string;
}

/** A page of the list: zero-based `page` of `size`, and the filters of the store's query. */
export type WorkflowListRequest = Omit<WorkflowListQuery, 'offset' | 'limit'> & { page: number; size: number };

export type WorkflowPage = Page<WorkflowListItem>;

export interface WorkflowService {
  start(caller: WorkflowCaller, body: unknown): Promise<{ workflowId: string }>;
  /** The caller's tenant's workflows, newest start first, from their summaries (no replay). */
  list(caller: WorkflowCaller, request: WorkflowListRequest): Promise<WorkflowPage>;
  get(caller: WorkflowCaller, workflowId: string): Promise<WorkflowView>;
  events(caller: WorkflowCaller, workflowId: string, fromSeq: number): Promise<WorkflowEventView[]>;
  signal(caller: WorkflowCaller, workflowId: string, body: unknown): Promise<WorkflowView>;
  cancel(caller: WorkflowCaller, workflowId: string): Promise<WorkflowView>;
}

/** What one tenant's workflows may hold; a start past any of them is refused, changing nothing. */
export interface WorkflowQuotas {
  /** Largest `context` of a start, as JSON text (WORKFLOW_CONTEXT_MAX_BYTES). */
  contextMaxBytes: number;
  /** Workflows of the tenant that have not ended (WORKFLOW_TENANT_MAX_UNFINISHED). */
  maxUnfinished: number;
  /** Bytes of the tenant's stored contexts and events, finished workflows included (WORKFLOW_TENANT_MAX_STORED_BYTES). */
  maxStoredBytes: number;
}

export interface WorkflowServiceDeps {
  workflows: WorkflowRepository;
  quotas: WorkflowQuotas;
  versions: Pick<VersionResolver, 'activeVersion'>;
  definitions: WorkflowDefinitions;
  /** Queues a `workflow-run` job so a worker advances the workflow. */
  enqueueRun(tenantId: string, workflowId: string): Promise<void>;
  /** The job could not be queued after the event was stored: the workers' resume sweep runs it. */
  onRunNotQueued?: (error: unknown, tenantId: string, workflowId: string) => void;
  now?: () => Date;
}

/** The bodies of the workflow routes: the service checks with them, and the routes declare them. */
export const startSchema = z.strictObject({
  policyModule: nameSchema,
  workflow: nameSchema,
  version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  context: z.record(z.string(), z.unknown()),
});
export const signalSchema = z.strictObject({ signal: z.string().min(1).max(128), approved: z.boolean() });

function invalid(message: string): WorkflowError {
  return new WorkflowError(400, WorkflowErrorCode.REQUEST_INVALID, message);
}

const NAME_RULE = `a name of 1 to ${MAX_NAME_LENGTH} characters`;
const START_BODY: BodyShape = {
  where: 'the request body',
  fieldList: '`policyModule`, `workflow`, `version` and `context`',
  fieldRules: { policyModule: NAME_RULE, workflow: NAME_RULE, version: 'a whole number of at least 0', context: 'a JSON object' },
};
const SIGNAL_BODY: BodyShape = {
  where: 'the request body',
  fieldList: '`signal` and `approved`',
  fieldRules: { signal: 'a signal name of 1 to 128 characters', approved: 'true or false' },
};

/** The body checked against `schema`; a 400 naming the first problem otherwise. */
function parse<T>(schema: z.ZodType<T>, body: unknown, shape: BodyShape): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw invalid(describeSchemaProblem(parsed.error, body, shape));
}

function conflict(message: string): WorkflowError {
  return new WorkflowError(409, WorkflowErrorCode.STATE_CONFLICT, message);
}

/**
 * The API side of workflows: starts them (pinning the module version), answers their state and
 * events by replaying the log, and turns signals and cancellations into events for the worker.
 */
export function createWorkflowService(deps: WorkflowServiceDeps): WorkflowService {
  const now = deps.now ?? (() => new Date());

  /** The tenant's workflow; another tenant's is a 403 (the interface tells them apart), none a 404. */
  async function owned(caller: WorkflowCaller, workflowId: string): Promise<WorkflowRecord> {
    const record = await deps.workflows.get(caller.tenantId, workflowId);
    if (record !== null) return record;
    const owner = await deps.workflows.ownerOf(workflowId);
    if (owner !== null) throw new WorkflowError(403, WorkflowErrorCode.OTHER_TENANT, 'the workflow belongs to another tenant');
    throw new WorkflowError(404, WorkflowErrorCode.NOT_FOUND, `no workflow \`${workflowId.slice(0, 128)}\``);
  }

  async function current(caller: WorkflowCaller, record: WorkflowRecord): Promise<{ state: WorkflowState; definition: WorkflowSignature }> {
    const definition = await deps.definitions.find(caller.tenantId, record.policyModule, record.version, record.workflow);
    const events = await deps.workflows.events(caller.tenantId, record.workflowId, 0, Number.MAX_SAFE_INTEGER);
    return { state: replay(definition, events), definition };
  }

  function view(record: WorkflowRecord, state: WorkflowState): WorkflowView {
    return {
      workflowId: record.workflowId,
      policyModule: record.policyModule,
      version: record.version,
      workflow: record.workflow,
      status: state.status,
      currentStep: state.currentStep,
      steps: state.steps,
      finalResult: state.finalResult,
      error: state.error,
      startedAt: record.startedAt,
    };
  }

  /**
   * A listed workflow marked finished whose summary says it has not ended: its summary write was
   * lost to a concurrent one of the same record (FerretDB applies filtered updates without
   * isolation), after which the resume sweep, which reads only unfinished workflows, would never see
   * it. Its terminal event tells the summary: stored again, and shown. One indexed read, only for
   * such an item.
   */
  async function repairedItem(tenantId: string, item: WorkflowListItem): Promise<WorkflowListItem> {
    if (item.finishedAt === null || isTerminal(item.status)) return item;
    const last = await deps.workflows.lastEvent(tenantId, item.workflowId);
    // A workflow whose start failed before its first event is marked finished with no event: RUNNING, as GET says.
    if (last === null || !isTerminalEvent(last.eventType)) return item;
    const summary = endedSummary(last);
    await deps.workflows.saveSummary(tenantId, item.workflowId, summary);
    return { ...item, status: summary.status, currentStep: summary.currentStep, finalResult: summary.finalResult };
  }

  /**
   * Queues the run for an event already stored. Failing the request now would be wrong: the event
   * stands (a client retrying a start would start a second workflow, a retried signal gets 409),
   * and the workers' resume sweep queues the run within about two of its intervals anyway.
   */
  async function queueRun(tenantId: string, workflowId: string): Promise<void> {
    try {
      await deps.enqueueRun(tenantId, workflowId);
    } catch (error) {
      deps.onRunNotQueued?.(error, tenantId, workflowId);
    }
  }

  /**
   * Refuses a start the tenant's quotas leave no room for. Counted from the store's usage counters;
   * starts arriving together are checked against the same count, so they may pass a quota by their
   * number (a bound on concurrent requests, not a hole).
   */
  async function withinQuotas(tenantId: string, contextBytes: number): Promise<void> {
    const { unfinished, storedBytes } = await deps.workflows.usage(tenantId);
    if (unfinished >= deps.quotas.maxUnfinished) {
      throw new WorkflowError(
        409,
        WorkflowErrorCode.UNFINISHED_LIMIT,
        `the tenant has ${unfinished} workflows that have not ended; at most ${deps.quotas.maxUnfinished} may be (WORKFLOW_TENANT_MAX_UNFINISHED): let some end or cancel them`,
      );
    }
    if (storedBytes + contextBytes > deps.quotas.maxStoredBytes) {
      throw new WorkflowError(
        409,
        WorkflowErrorCode.STORAGE_LIMIT,
        `the tenant's workflows hold ${storedBytes} bytes of contexts and events; this start would pass ${deps.quotas.maxStoredBytes} (WORKFLOW_TENANT_MAX_STORED_BYTES)`,
      );
    }
  }

  /** Appends the event `make` builds from the current state; re-reads after a lost race. */
  async function appendOnState(
    caller: WorkflowCaller,
    record: WorkflowRecord,
    make: (state: WorkflowState, definition: WorkflowSignature) => WorkflowEventBody,
  ): Promise<WorkflowView> {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const { state, definition } = await current(caller, record);
      const event = make(state, definition);
      const stored = await deps.workflows.append(caller.tenantId, record.workflowId, [
        { sequence: state.nextSequence, ...event, occurredAt: now().toISOString() },
      ]);
      if (stored === 1) {
        const after = (await current(caller, record)).state;
        await storeSummary(deps.workflows, caller.tenantId, record.workflowId, summaryOf(after));
        await queueRun(caller.tenantId, record.workflowId);
        return view(record, after);
      }
    }
    throw conflict('the workflow kept changing concurrently: retry');
  }

  return {
    async start(caller, body) {
      const request = parse(startSchema, body, START_BODY);
      const contextBytes = storedBytesOf(JSON.stringify(request.context));
      if (contextBytes > deps.quotas.contextMaxBytes) {
        throw new WorkflowError(
          413,
          WorkflowErrorCode.CONTEXT_TOO_LARGE,
          `\`context\` is ${contextBytes} bytes of JSON; a workflow's context is at most ${deps.quotas.contextMaxBytes} (WORKFLOW_CONTEXT_MAX_BYTES)`,
        );
      }
      let version: number;
      try {
        version = request.version ?? (await deps.versions.activeVersion(caller.tenantId, request.policyModule));
      } catch (error) {
        if (error instanceof PolicyRegistryError && error.status === 404) throw new WorkflowError(404, WorkflowErrorCode.NOT_FOUND, error.message);
        throw error;
      }
      let definition;
      try {
        definition = await deps.definitions.find(caller.tenantId, request.policyModule, version, request.workflow);
      } catch (error) {
        if (error instanceof PolicyRegistryError && error.status === 404) throw new WorkflowError(404, WorkflowErrorCode.NOT_FOUND, error.message);
        throw error;
      }
      const expected = definition.params.map((p) => p.name);
      const given = Object.keys(request.context);
      const missing = expected.filter((p) => !given.includes(p));
      const unknown = given.filter((p) => !expected.includes(p));
      if (missing.length > 0 || unknown.length > 0) {
        const parts = [
          ...(missing.length > 0 ? [`missing ${missing.map((p) => `\`${p}\``).join(', ')}`] : []),
          ...(unknown.length > 0 ? [`unknown ${listNames(unknown)}`] : []),
        ];
        throw invalid(`\`context\` must hold the workflow's parameters (${expected.map((p) => `\`${p}\``).join(', ') || 'none'}): ${parts.join('; ')}`);
      }
      await withinQuotas(caller.tenantId, contextBytes);
      const startedAt = now().toISOString();
      const record: WorkflowRecord = {
        workflowId: randomUUID(),
        policyModule: request.policyModule,
        version,
        workflow: request.workflow,
        context: request.context,
        actorId: caller.actorId,
        startedAt,
      };
      if (!(await deps.workflows.create(caller.tenantId, record))) throw new Error(`workflow id ${record.workflowId} is already taken`);
      const started = { sequence: 1, eventType: E.STARTED, payload: {}, occurredAt: startedAt } as const;
      await deps.workflows.append(caller.tenantId, record.workflowId, [started]);
      await storeSummary(deps.workflows, caller.tenantId, record.workflowId, summaryOf(replay(definition, [started])));
      await queueRun(caller.tenantId, record.workflowId);
      return { workflowId: record.workflowId };
    },

    async list(caller, { page, size, ...filters }) {
      const { items, total } = await deps.workflows.list(caller.tenantId, { ...filters, offset: page * size, limit: size });
      const content = await Promise.all(items.map((item) => repairedItem(caller.tenantId, item)));
      return pageView(content, total, { page, size });
    },

    async get(caller, workflowId) {
      const record = await owned(caller, workflowId);
      return view(record, (await current(caller, record)).state);
    },

    async events(caller, workflowId, fromSeq) {
      const record = await owned(caller, workflowId);
      const events = await deps.workflows.events(caller.tenantId, workflowId, fromSeq, WORKFLOW_EVENTS_PAGE);
      return events.map((e) => ({ sequence: e.sequence, workflowId: record.workflowId, eventType: e.eventType, payload: e.payload, occurredAt: e.occurredAt }));
    },

    async signal(caller, workflowId, body) {
      const request = parse(signalSchema, body, SIGNAL_BODY);
      const record = await owned(caller, workflowId);
      return appendOnState(caller, record, (state, definition) => {
        const step = state.steps.find((s) => s.status === 'WAITING');
        if (state.status !== 'WAITING' || step === undefined) throw conflict(`the workflow is ${state.status}; it awaits no signal`);
        const awaited = definition.steps.find((s) => s.name === step.name);
        if (awaited?.kind === 'await' && awaited.signal !== request.signal) {
          throw conflict(`step \`${step.name}\` awaits signal \`${awaited.signal}\`, not \`${request.signal}\``);
        }
        return { eventType: E.SIGNAL_RECEIVED, payload: { step: step.name, signal: request.signal, approved: request.approved } };
      });
    },

    async cancel(caller, workflowId) {
      const record = await owned(caller, workflowId);
      return appendOnState(caller, record, (state) => {
        if (isTerminal(state.status) || state.cancelRequested) throw conflict(`the workflow is ${state.cancelRequested ? 'being cancelled' : state.status}`);
        return { eventType: E.CANCEL_REQUESTED, payload: { by: caller.actorId } };
      });
    },
  };
}
