/**
 * Underwriting workflows of `insurance.demo`: some wait for an underwriter's signal, one is
 * approved and completes, one fails its first step. A later run only tops up the waiting ones.
 */
import { CliError, type CliIo } from '../cli-io.js';
import { driverContext } from './demo-contexts.js';
import type { ServiceApi } from './service-api.js';

const WORKFLOWS_ROUTE = '/api/v1/workflows';
export const DEMO_WORKFLOW = { policyModule: 'insurance.demo', workflow: 'underwriteQuote', signal: 'underwriter-approval' } as const;
/** Workflows left waiting for the signal, for the operator to find. */
const WAITING_WANTED = 3;
const POLL_MS = 250;
const WAIT_FOR_STATUS_MS = 30_000;
const ENDED = ['COMPLETED', 'FAILED', 'CANCELLED'];

interface Page {
  totalElements: number;
}

async function count(api: ServiceApi, status?: string): Promise<number> {
  const query = new URLSearchParams({ policyModule: DEMO_WORKFLOW.policyModule, workflow: DEMO_WORKFLOW.workflow, size: '1', ...(status === undefined ? {} : { status }) });
  return (await api.call<Page>('GET', `${WORKFLOWS_ROUTE}?${query}`)).totalElements;
}

async function start(api: ServiceApi, context: unknown): Promise<string> {
  const { policyModule, workflow } = DEMO_WORKFLOW;
  return (await api.call<{ workflowId: string }>('POST', WORKFLOWS_ROUTE, { policyModule, workflow, context })).workflowId;
}

interface WorkflowState {
  status: string;
  finalResult: boolean | null;
}

/** Waits until the workflow's state is one of `statuses`; a CliError past the bound. */
async function untilStatus(api: ServiceApi, workflowId: string, statuses: readonly string[]): Promise<WorkflowState> {
  const deadline = Date.now() + WAIT_FOR_STATUS_MS;
  for (;;) {
    const state = await api.call<WorkflowState>('GET', `${WORKFLOWS_ROUTE}/${workflowId}`);
    const { status } = state;
    if (statuses.includes(status)) return state;
    if (Date.now() >= deadline) {
      throw new CliError(`workflow ${workflowId} is still ${status} after ${WAIT_FOR_STATUS_MS / 1000} s: is a worker running (role all or worker)?`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A COMPLETED workflow's final result tells approved (true) from rejected (false). */
function describe(state: WorkflowState): string {
  return state.status === 'COMPLETED' ? `COMPLETED, ${state.finalResult === true ? 'approved' : 'rejected'}` : state.status;
}

/** Starts the demo's workflows; the number waiting for the signal afterwards. */
export async function startDemoWorkflows(api: ServiceApi, io: CliIo): Promise<number> {
  const firstRun = (await count(api)) === 0;
  const waiting = await count(api, 'WAITING');
  const started: string[] = [];
  for (let n = waiting; n < WAITING_WANTED; n += 1) started.push(await start(api, driverContext(n)));
  if (firstRun) {
    const approved = await start(api, driverContext(WAITING_WANTED));
    const refused = await start(api, driverContext(WAITING_WANTED + 1, { eligible: false }));
    await untilStatus(api, approved, ['WAITING']);
    await api.call('POST', `${WORKFLOWS_ROUTE}/${approved}/signals`, { signal: DEMO_WORKFLOW.signal, approved: true });
    io.out(`  ${approved}: approved by the underwriter, ${describe(await untilStatus(api, approved, ENDED))}`);
    io.out(`  ${refused}: driver not eligible, ${describe(await untilStatus(api, refused, ENDED))}`);
  }
  for (const workflowId of started) await untilStatus(api, workflowId, ['WAITING']);
  const nowWaiting = await count(api, 'WAITING');
  io.out(`  ${started.length} started to wait for "${DEMO_WORKFLOW.signal}"; ${nowWaiting} waiting in all`);
  return nowWaiting;
}
