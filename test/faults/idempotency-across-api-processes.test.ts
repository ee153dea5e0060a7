// Two API processes share one store and one Redis: the same status change of an anomaly, sent with
// one Idempotency-Key to both at once, happens once — one transition, one ANOMALY_STATUS_CHANGED
// record. The process that took the key answers 200; the other replays that answer (200,
// `Idempotent-Replayed: true`, the same body) or, while the first still runs, answers 409
// ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS; a retry after both replays the stored answer.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyType, StoredAnomaly } from '../../src/anomalies/index.js';
import { createJwtKeyRing } from '../../src/auth/index.js';
import { openMongoStore, openSqliteStore, type Store } from '../../src/store/index.js';
import {
  assertServiceBuilt,
  createBearerCaller,
  describeWithMongo,
  dropMongoDatabase,
  REDIS_URL,
  removeRedisPrefix,
  runService,
  seedAnomalies,
  uniqueDatabaseName,
  untilLinked,
  type BearerCall,
  type HttpAnswer,
  type ServiceProcess,
} from '../support/index.js';

const ROUNDS = 40;
const TYPES: readonly AnomalyType[] = ['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'];

/** Where the processes keep their data: extra environment, and how the test opens the same store. */
interface SharedStore {
  env: Record<string, string>;
  open(): Promise<Store>;
  dispose(): Promise<void>;
}

type Outcome = 'replayed' | 'in-progress';

/** Registers the suite in the enclosing describe; `shared` is called once its data directory exists. */
function sameKeyOnTwoApis(shared: (dataDir: string) => SharedStore): void {
  const tenant = { tenantId: `acme-${randomBytes(4).toString('hex')}` };
  const jwtSecret = randomBytes(32).toString('base64url');
  const keyRing = createJwtKeyRing([{ kid: 'k1', secret: jwtSecret }], 'test');
  const processes: ServiceProcess[] = [];
  const callers: BearerCall[] = [];
  let dir: string;
  let store: SharedStore;
  let env: Record<string, string>;
  let anomalies: StoredAnomaly[];

  beforeAll(async () => {
    assertServiceBuilt();
    dir = await mkdtemp(join(tmpdir(), 'pe-fault-idempotency-'));
    store = shared(dir);
    env = {
      DATA_DIR: dir,
      REDIS_URL,
      REDIS_KEY_PREFIX: `fault-${randomUUID()}`,
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMIT_POINTS: '1000000',
      JWT_KEYS: `k1:${jwtSecret}`,
      ENGINE_THREADS: '1',
      ...store.env,
    };
    const seeding = await store.open();
    try {
      anomalies = await seedAnomalies(
        seeding,
        tenant.tenantId,
        Array.from({ length: ROUNDS }, (_, round) => ({ type: TYPES[round % TYPES.length]!, policyModule: 'acme.claims', policyFunction: `rule${round}`, version: 1 })),
      );
    } finally {
      await seeding.close();
    }
    const worker = runService(['--role', 'worker'], env);
    processes.push(worker);
    await worker.waitForLog('service started');
    for (let i = 0; i < 2; i++) {
      const api = runService(['--role', 'api'], env);
      processes.push(api);
      callers.push(createBearerCaller(`http://127.0.0.1:${(await api.waitForLog('api listening')).port as number}`, keyRing));
    }
  }, 60_000);

  afterAll(async () => {
    for (const running of processes) {
      if (running.child.exitCode === null) running.child.kill('SIGTERM');
      await running.exited;
    }
    if (env) await removeRedisPrefix(env.REDIS_KEY_PREFIX!);
    await store?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('changes the status once per key, and both processes answer alike', async () => {
    const winners: number[] = [];
    const outcomes: Outcome[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const path = `/api/v1/audit/anomalies/${anomalies[round]!.id}/status`;
      const body = { status: round % 3 === 0 ? 'DISMISSED' : 'RESOLVED', note: `round ${round}` };
      const headers = { 'Idempotency-Key': randomUUID() };
      // Who sends first alternates, so that neither process is favoured by the order of the calls.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      const sent = await Promise.all(order.map((i) => callers[i]!(tenant, 'ADMIN', 'PATCH', path, body, headers)));
      const answers: HttpAnswer[] = [];
      order.forEach((i, at) => (answers[i] = sent[at]!));

      const won = answers.findIndex((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
      expect(won, `round ${round}: ${JSON.stringify(answers.map((a) => [a.status, a.body]))}`).toBeGreaterThanOrEqual(0);
      const first = answers[won]!;
      const other = answers[1 - won]!;
      expect(first.body).toMatchObject({ id: anomalies[round]!.id, status: body.status });
      if (other.status === 200) {
        expect(other.headers.get('idempotent-replayed'), `round ${round}`).toBe('true');
        expect(other.body).toEqual(first.body);
        outcomes.push('replayed');
      } else {
        expect([other.status, (other.body as { code?: string }).code], `round ${round}`).toEqual([409, 'ERR_IDEMPOTENCY_REQUEST_IN_PROGRESS']);
        outcomes.push('in-progress');
      }
      // Once both have answered, a retry at the process that did not run the change gets the stored answer.
      const retry = await callers[1 - won]!(tenant, 'ADMIN', 'PATCH', path, body, headers);
      expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(retry.body).toEqual(first.body);
      winners.push(won);
    }
    // Both processes took keys: the race was real, not one process answering every time.
    expect(winners.filter((w) => w === 0).length, `outcomes ${outcomes.join(' ')}`).toBeGreaterThan(0);
    expect(winners.filter((w) => w === 1).length, `outcomes ${outcomes.join(' ')}`).toBeGreaterThan(0);

    // Stop the APIs gracefully so their audit recorders have stored everything; records one stored
    // while the other held the tenant's lease are linked by whoever holds it next (the worker's
    // sweep, once both are gone). Then count what happened.
    for (const running of processes.slice(1)) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    const reading = await store.open();
    try {
      expect(await untilLinked(async () => (await reading.auditLinks.unlinkedSummary(tenant.tenantId)).count)).toBe(0);
      const changed = (await reading.audit.list(tenant.tenantId, { eventType: 'ANOMALY_STATUS_CHANGED', limit: 10_000 })).map((r) => r.payload.anomalyId);
      expect(changed.sort()).toEqual(anomalies.map((a) => a.id).sort());
      for (const anomaly of anomalies) {
        const transitions = await reading.anomalies.transitions(tenant.tenantId, anomaly.id);
        expect(transitions.map((t) => `${t.from}>${t.to}`), anomaly.id).toHaveLength(1);
      }
    } finally {
      await reading.close();
    }
  }, 180_000);
}

describe('one Idempotency-Key sent to two API processes at once, on SQLite', () => {
  sameKeyOnTwoApis((dataDir) => ({
    env: {},
    open: () => openSqliteStore(join(dataDir, 'policy-engine.sqlite')),
    dispose: async () => {},
  }));
});

describeWithMongo('one Idempotency-Key sent to two API processes at once, on MongoDB', (url) => {
  const database = uniqueDatabaseName('pe_fault_idempotency');
  sameKeyOnTwoApis(() => ({
    env: { MONGODB_URL: url, MONGODB_DATABASE: database },
    open: () => openMongoStore({ url, database }),
    dispose: () => dropMongoDatabase(url, database),
  }));
});
