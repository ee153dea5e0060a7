// Workflows as the service runs them: the policy registry harness (real HTTP, Redis, evaluation
// worker and threads, a real store) plus the workflow routes and a `workflow-run` worker on real
// Redis. A minute of a `within` limit lasts `minuteMs` here, so time-outs need no long waits.
import { randomUUID } from 'node:crypto';
import { createWorkflowRoutes } from '../../../src/api/index.js';
import { envSchema } from '../../../src/config/index.js';
import {
  createWorkflowDefinitions,
  createWorkflowJobQueue,
  createWorkflowRunner,
  createWorkflowService,
  evaluateStep,
  startWorkflowWorker,
  type WorkflowJobQueue,
  type WorkflowQuotas,
  type WorkflowTurnSize,
  type WorkflowWorker,
} from '../../../src/workflows/index.js';
import type { Store } from '../../../src/store/index.js';
import { createBearerCaller, REDIS_URL, removeRedisPrefix, type BearerCall } from '../../support/index.js';
import { startPoliciesHarness, type PoliciesHarness, type TenantInfo } from '../policies-support/policies-harness.js';

export type { TenantInfo };

export interface WorkflowsHarness {
  policies: PoliciesHarness;
  store: Store;
  call: BearerCall;
  deploy(tenant: TenantInfo, source: string): Promise<number>;
  /** Polls the workflow's state until `done` holds for it. */
  until(tenant: TenantInfo, workflowId: string, done: (state: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface WorkflowsHarnessOptions {
  openStore?: () => Promise<Store>;
  minuteMs: number;
  /** Default: the service's defaults (the WORKFLOW_* settings). */
  quotas?: Partial<WorkflowQuotas>;
  /** Default: the worker's. */
  turn?: WorkflowTurnSize;
}

/** The quotas the service starts with when no setting changes them. */
export const DEFAULT_QUOTAS: WorkflowQuotas = {
  contextMaxBytes: envSchema.shape.WORKFLOW_CONTEXT_MAX_BYTES.parse(undefined),
  maxUnfinished: envSchema.shape.WORKFLOW_TENANT_MAX_UNFINISHED.parse(undefined),
  maxStoredBytes: envSchema.shape.WORKFLOW_TENANT_MAX_STORED_BYTES.parse(undefined),
};

export async function startWorkflowsHarness(options: WorkflowsHarnessOptions): Promise<WorkflowsHarness> {
  const prefix = `test-workflows-${randomUUID()}`;
  const queue: WorkflowJobQueue = createWorkflowJobQueue({ connection: REDIS_URL, prefix });
  const policies = await startPoliciesHarness({
    ...(options.openStore ? { openStore: options.openStore } : {}),
    extraRoutes: ({ stack, store, nonceGuard }) => [
      createWorkflowRoutes({
        service: createWorkflowService({
          workflows: store.workflows,
          quotas: { ...DEFAULT_QUOTAS, ...options.quotas },
          versions: stack.versions,
          definitions: createWorkflowDefinitions({ versions: stack.versions, compile: stack.evaluation.compile }),
          enqueueRun: (tenantId, workflowId) => queue.enqueueRun(tenantId, workflowId),
        }),
        tenants: store.tenants,
        nonceGuard,
      }),
    ],
  });
  const { stack, store } = policies;
  const definitions = createWorkflowDefinitions({ versions: stack.versions, compile: stack.evaluation.compile });
  const worker: WorkflowWorker = await startWorkflowWorker({
    connection: REDIS_URL,
    prefix,
    runner: createWorkflowRunner({
      workflows: store.workflows,
      definition: (tenantId, record) => definitions.find(tenantId, record.policyModule, record.version, record.workflow),
      evaluate: (tenantId, record, rule, args) => evaluateStep(stack.evaluation, tenantId, record, rule, args),
      scheduleTimeout: (tenantId, workflowId, step, delayMs) => queue.scheduleTimeout(tenantId, workflowId, step, delayMs),
      minuteMs: options.minuteMs,
    }),
    ...(options.turn ? { turn: options.turn } : {}),
  });

  const call = createBearerCaller(policies.baseUrl, policies.keyRing);

  return {
    policies,
    store,
    call,
    async deploy(tenant, source) {
      const answer = await call<{ version: number }>(tenant, 'ADMIN', 'POST', '/api/v1/policies', { source });
      if (answer.status !== 201) throw new Error(`deploy answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.version;
    },
    async until(tenant, workflowId, done) {
      for (let attempt = 0; attempt < 600; attempt += 1) {
        const answer = await call<Record<string, unknown>>(tenant, 'MEMBER', 'GET', `/api/v1/workflows/${workflowId}`);
        if (answer.status !== 200) throw new Error(`state answered ${answer.status}`);
        if (done(answer.body)) return answer.body;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`workflow ${workflowId} did not reach the state in time`);
    },
    async close() {
      await worker.close();
      await queue.close();
      await policies.close();
      await removeRedisPrefix(prefix);
    },
  };
}
