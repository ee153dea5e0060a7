// The steady mixed load of the fault scenarios and the ledger of what it sent and got back. Clients
// behave as the interface asks: 429 and 5xx are retried with backoff (a fresh signature and nonce
// every attempt), 400 and 403 never; a connection refused or reset is retried on another API
// process, as a load balancer would. Every evaluation attempt carries tags that reach its audit
// record (a module name of its own, or the subject of a token of its own), so afterwards each
// answered evaluation can be found in the chain exactly once.
import { randomUUID } from 'node:crypto';
import { createJwtKeyRing, createTokenSigner, type TokenSigner } from '../../../src/auth/index.js';
import { signRequest } from '../../../src/auth/request-signature.js';
import { decideRetry, type RetryPolicy } from '../../../clients/typescript/src/index.js';
import { FAULT_TENANT, JWT_KID, JWT_SECRET, type FaultCluster } from './fault-cluster.js';

/** No answer within this is a hang. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** A logical request retried for longer than this has failed. */
const REQUEST_DEADLINE_MS = 60_000;
const RETRY: RetryPolicy = { retries: 1000, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 10_000 };

export const DEPLOYED_MODULE = 'fault.pricing';
export const WORKFLOW_MODULE = 'fault.onboarding';
export const DEPLOYED_SOURCE = `Module ${DEPLOYED_MODULE}.\n\nRule price given amount as Int, produce Int:\n  Return amount times 2.\n`;
export const WORKFLOW_SOURCE =
  `Module ${WORKFLOW_MODULE}.\n\nRule adult given age as Int, produce Bool:\n  Return age is at least 18.\n\n` +
  'Workflow onboard given age as Int:\n  Step check: adult(age).\n  Step review: Await "approval" within 2 hours.\n  Step confirm: adult(age).\n';
const GRAPHQL_QUERY =
  'query($a: LoanApplication!, $p: LoanApplicant!) { evaluateLoanEligibility(application: $a, applicant: $p) { eligible maxApprovedAmount } }';
const GRAPHQL_VARIABLES = {
  a: { requestedAmount: 20000, termMonths: 36, purpose: 'CAR' },
  p: { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
};

export type OperationKind = 'source' | 'deployed' | 'batch' | 'graphql' | 'workflow' | 'anomaly';
const MIX: readonly OperationKind[] = ['source', 'source', 'source', 'deployed', 'deployed', 'batch', 'graphql', 'graphql', 'workflow', 'anomaly'];
const BATCH_ITEMS = 4;

export interface Attempt {
  kind: OperationKind;
  /** HTTP status, or `network` (refused, reset) or `timeout` (no answer in ATTEMPT_TIMEOUT_MS). */
  outcome: number | 'network' | 'timeout';
  code?: string;
  /** Evaluation tags of this attempt: each must be in the chain once if it was answered 200. */
  tags: string[];
  /** Network errors: the API process it went to. */
  base?: string;
}

export interface AnomalyChange {
  anomalyId: string;
  idempotencyKey: string;
  /** The note sent: identifies the change in the chain. */
  note: string;
  /** The final definitive status of the request (after retries with the same key), or null. */
  status: number | null;
}

export interface Ledger {
  attempts: Attempt[];
  /** Logical requests that never got a definitive answer before their deadline. */
  gaveUp: Array<{ kind: OperationKind; last: string }>;
  workflows: string[];
  anomalyChanges: AnomalyChange[];
  /** GraphQL decisions answered with data and no error. */
  graphqlDecided: number;
}

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
}

export interface MixedLoad {
  readonly ledger: Ledger;
  /** Stops starting new requests and waits for those in flight. */
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startMixedLoad(cluster: FaultCluster<unknown>, options: { clients: number; anomalyIds: readonly string[]; adminToken: string }): MixedLoad {
  const ledger: Ledger = { attempts: [], gaveUp: [], workflows: [], anomalyChanges: [], graphqlDecided: 0 };
  const signer: TokenSigner = createTokenSigner(createJwtKeyRing([{ kid: JWT_KID, secret: JWT_SECRET }], 'fault suite'));
  let running = true;
  let counter = 0;
  let nextBase = 0;
  const tag = (prefix: string) => `${prefix}${(counter += 1)}`;

  async function pickBase(): Promise<string> {
    for (;;) {
      const bases = cluster.apiBases();
      if (bases.length > 0) return bases[(nextBase += 1) % bases.length]!;
      await pause(50);
    }
  }

  /** One attempt; network trouble and hangs are outcomes, not exceptions. */
  async function attempt(kind: OperationKind, tags: string[], path: string, method: string, body: string | undefined, headers: Record<string, string>): Promise<Answer | null> {
    const base = await pickBase();
    const record: Attempt = { kind, outcome: 'network', tags };
    ledger.attempts.push(record);
    try {
      const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) });
      const text = await response.text();
      record.outcome = response.status;
      let parsed: unknown = null;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        parsed = text;
      }
      const code = (parsed as { code?: unknown } | null)?.code;
      if (typeof code === 'string') record.code = code;
      return { status: response.status, body: parsed, retryAfter: response.headers.get('retry-after') };
    } catch (error) {
      record.outcome = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
      const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
      record.code = String(cause?.code ?? cause?.message ?? (error as Error).message);
      record.base = base;
      return null;
    }
  }

  /**
   * Runs `once` (which builds a fresh attempt: new signature, new tags) until it gets a definitive
   * answer: anything but 429, 5xx, a network error or a hang. Null after the deadline.
   */
  async function untilDefinitive(kind: OperationKind, once: () => Promise<Answer | null>): Promise<Answer | null> {
    const deadline = Date.now() + REQUEST_DEADLINE_MS;
    let last = 'none';
    for (let retryIndex = 0; Date.now() < deadline; retryIndex += 1) {
      const answer = await once();
      if (answer === null) {
        last = 'network';
        await pause(50);
        continue;
      }
      const decision = decideRetry(answer.status, answer.retryAfter, retryIndex, RETRY, Math.random, Date.now());
      if (!decision.retry) return answer;
      last = String(answer.status);
      await pause(Math.min(decision.delayMs, 2000));
    }
    ledger.gaveUp.push({ kind, last });
    return null;
  }

  const signedHeaders = (method: string, path: string, body: string, role = 'MEMBER') => ({
    ...signRequest({ method, pathWithQuery: path, body, tenantId: FAULT_TENANT, role, secret: cluster.secret }),
    'content-type': 'application/json',
  });
  const bearerHeaders = (token: string) => ({ authorization: `Bearer ${token}`, 'x-tenant-id': FAULT_TENANT, 'content-type': 'application/json' });
  const tokenFor = (subject: string, role: 'MEMBER' | 'ADMIN' = 'MEMBER') => signer.sign({ subject, tenantId: FAULT_TENANT, roles: [role], ttlSeconds: 3600 });

  const expect200 = (kind: OperationKind, answer: Answer | null, wanted = 200) => {
    if (answer !== null && answer.status !== wanted) ledger.gaveUp.push({ kind, last: `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}` });
  };

  const operations: Record<OperationKind, () => Promise<void>> = {
    async source() {
      const path = '/api/v1/policies/evaluate-source';
      const answer = await untilDefinitive('source', () => {
        const module = tag('fault.s');
        const body = JSON.stringify({ source: `Module ${module}.\nRule f given x as Int, produce Int:\n  Return x times 2.\n`, functionName: 'f', context: { x: 21 } });
        return attempt('source', [module], path, 'POST', body, signedHeaders('POST', path, body));
      });
      expect200('source', answer);
    },
    async deployed() {
      const body = JSON.stringify({ policyModule: DEPLOYED_MODULE, policyFunction: 'price', context: { amount: 21 } });
      const answer = await untilDefinitive('deployed', async () => {
        const subject = tag('d');
        return attempt('deployed', [subject], '/api/v1/policies/evaluate', 'POST', body, bearerHeaders(await tokenFor(subject)));
      });
      expect200('deployed', answer);
    },
    async batch() {
      const answer = await untilDefinitive('batch', async () => {
        const modules = Array.from({ length: BATCH_ITEMS }, () => tag('fault.b'));
        const items = modules.map((module) => ({ source: `Module ${module}.\nRule f given x as Int, produce Int:\n  Return x plus 1.\n`, functionName: 'f', context: { x: 1 } }));
        const token = await tokenFor(tag('b'));
        return attempt('batch', modules, '/api/v1/policies/evaluate-source/batch', 'POST', JSON.stringify({ items }), bearerHeaders(token));
      });
      expect200('batch', answer);
    },
    async graphql() {
      const body = JSON.stringify({ query: GRAPHQL_QUERY, variables: GRAPHQL_VARIABLES });
      // A GraphQL answer is 200 with `errors` when a dependency failed: retried like a 503.
      const deadline = Date.now() + REQUEST_DEADLINE_MS;
      while (Date.now() < deadline) {
        const answer = await untilDefinitive('graphql', () => attempt('graphql', [], '/graphql', 'POST', body, signedHeaders('POST', '/graphql', body)));
        if (answer === null) return;
        const decided = (answer.body as { data?: { evaluateLoanEligibility?: { eligible?: unknown } } }).data?.evaluateLoanEligibility?.eligible;
        if (answer.status === 200 && typeof decided === 'boolean' && !(answer.body as { errors?: unknown }).errors) {
          ledger.graphqlDecided += 1;
          return;
        }
        const codes = ((answer.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors ?? []).map((e) => e.extensions?.code);
        if (!codes.every((code) => code === 'ERR_SERVICE_UNAVAILABLE' || code === 'ERR_EVALUATION_UNAVAILABLE')) {
          ledger.gaveUp.push({ kind: 'graphql', last: `${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}` });
          return;
        }
        ledger.attempts.at(-1)!.code = codes[0];
        await pause(200);
      }
      ledger.gaveUp.push({ kind: 'graphql', last: 'errors until the deadline' });
    },
    async workflow() {
      const token = await tokenFor('workflow-client');
      const body = JSON.stringify({ policyModule: WORKFLOW_MODULE, workflow: 'onboard', context: { age: 30 } });
      // A start whose answer was lost may have started a workflow nobody signals: the final sweep
      // lists WAITING ones from the store and signals them too.
      const answer = await untilDefinitive('workflow', () => attempt('workflow', [], '/api/v1/workflows', 'POST', body, bearerHeaders(token)));
      if (answer?.status !== 201) return expect200('workflow', answer, 201);
      const workflowId = (answer.body as { workflowId: string }).workflowId;
      ledger.workflows.push(workflowId);
      // Approve it once it waits for the review (a moment: one rule step first). One that does not
      // wait yet in time, or whose signal fails for good, is approved by the final sweep.
      const path = `/api/v1/workflows/${workflowId}`;
      for (let poll = 0; poll < 20; poll += 1) {
        const state = await untilDefinitive('workflow', () => attempt('workflow', [], path, 'GET', undefined, bearerHeaders(token)));
        if (state?.status !== 200) return;
        if ((state.body as { status?: string }).status === 'WAITING') break;
        await pause(100);
      }
      const signal = JSON.stringify({ signal: 'approval', approved: true });
      const signalled = await untilDefinitive('workflow', () => attempt('workflow', [], `${path}/signals`, 'POST', signal, bearerHeaders(token)));
      // 409: it did not wait (yet), or an earlier attempt whose answer was lost delivered the signal.
      if (signalled !== null && signalled.status !== 200 && signalled.status !== 409) expect200('workflow', signalled);
    },
    async anomaly() {
      const anomalyId = options.anomalyIds[Math.floor(Math.random() * options.anomalyIds.length)]!;
      const path = `/api/v1/audit/anomalies/${anomalyId}`;
      const headers = bearerHeaders(options.adminToken);
      const current = await untilDefinitive('anomaly', () => attempt('anomaly', [], path, 'GET', undefined, headers));
      if (current?.status !== 200) return expect200('anomaly', current);
      const status = (current.body as { status: string }).status;
      const change: AnomalyChange = { anomalyId, idempotencyKey: randomUUID(), note: tag('note-'), status: null };
      ledger.anomalyChanges.push(change);
      const body = JSON.stringify({ status: status === 'OPEN' ? 'RESOLVED' : 'OPEN', note: change.note });
      const keyed = { ...headers, 'idempotency-key': change.idempotencyKey };
      // The same key on every retry; a key still held by an attempt in flight answers 409 for a while.
      const deadline = Date.now() + REQUEST_DEADLINE_MS;
      while (Date.now() < deadline) {
        const answer = await untilDefinitive('anomaly', () => attempt('anomaly', [], `${path}/status`, 'PATCH', body, keyed));
        if (answer === null) return;
        if (answer.status === 409 && (answer.body as { code?: string }).code === 'ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS') {
          await pause(250);
          continue;
        }
        change.status = answer.status;
        return;
      }
    },
  };

  async function client(): Promise<void> {
    while (running) {
      const kind = MIX[Math.floor(Math.random() * MIX.length)]!;
      await operations[kind]();
    }
  }

  const clients = Array.from({ length: options.clients }, () => client());
  return {
    ledger,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}
