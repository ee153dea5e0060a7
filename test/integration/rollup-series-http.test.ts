// GET /api/v1/audit/rollups over real HTTP, with the real app on each store: per-minute buckets
// seeded through the repository (two connections, so on MongoDB a bucket has two writers' shares)
// come back summed per step and per version, for the caller's tenant only and for ADMIN only, and
// bad queries are 400 envelopes naming what is wrong.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerSchemas, ROLLUPS_ROUTE } from '../../src/api/index.js';
import type { Role } from '../../src/auth/index.js';
import type { RollupIncrement } from '../../src/rollups/index.js';
import type { Store } from '../../src/store/index.js';
import {
  connectRedis,
  createBearerCaller,
  createTestApp,
  describeWithMongo,
  listen,
  mongoTarget,
  newKeyRing,
  removeRedisPrefix,
  sqliteTarget,
  type BearerCall,
  type HttpListener,
  type StoreTarget,
} from '../support/index.js';

const MODULE = 'acme.claims';
const RULE = 'assess';
const DAY = '2026-04-06';
const at = (time: string) => `${DAY}T${time}:00.000Z`;

/** A bucket of MODULE.RULE; times in ms chosen so that every sum is exact in binary. */
function bucket(version: number, time: string, count: number, failures: number, timeSum: number, max: number, spec: Partial<RollupIncrement> = {}): RollupIncrement {
  return { policyModule: MODULE, policyFunction: RULE, version, minute: at(time), count, failures, timeSum, max, timeSquares: max * timeSum, ...spec };
}

/** A point as documented: the rates are the sums' ratios, null without evaluations. */
function point(time: string, count: number, failures: number, timeSum: number, max: number) {
  return { at: at(time), ...figures(count, failures, timeSum, max) };
}

function figures(count: number, failures: number, timeSum: number, max: number) {
  return count === 0
    ? { count, failures, failureRate: null, meanMs: null, maxMs: null }
    : { count, failures, failureRate: failures / count, meanMs: timeSum / count, maxMs: max };
}

interface Series {
  version: number;
  versionId: string;
  total: ReturnType<typeof figures>;
  points: Array<ReturnType<typeof point>>;
}

interface SeriesAnswer {
  policyModule: string;
  policyFunction: string;
  step: string;
  from: string;
  to: string;
  series: Series[];
}

interface Envelope {
  result: null;
  error: string;
  executionTimeMs: number;
  code: string;
}

function rollupSeriesScenario(name: string, makeTarget: () => StoreTarget): void {
  describe(name, () => {
    let target: StoreTarget;
    let store: Store;
    let redis: Redis;
    let http: HttpListener;
    let call: BearerCall;
    const prefix = `test-rollups-${randomUUID()}`;
    const acme = { tenantId: `acme-${randomBytes(4).toString('hex')}` };
    const globex = { tenantId: `globex-${randomBytes(4).toString('hex')}` };

    const get = <T>(query: string, tenant = acme, role: Role = 'ADMIN') => call<T>(tenant, role, 'GET', `${ROLLUPS_ROUTE}?${query}`);
    const series = async (query: string, tenant = acme) => {
      const answer = await get<SeriesAnswer>(query, tenant);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      // What the OpenAPI document promises, field for field.
      expect(answerSchemas.rollupSeries.strict().parse(answer.body)).toEqual(answer.body);
      return answer.body;
    };
    const refusal = async (query: string) => {
      const answer = await get<Envelope>(query);
      expect(answer.status, `${query}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answerSchemas.errorEnvelope.parse(answer.body)).toEqual(answer.body);
      expect(answer.body.code).toBe('ERR_REQUEST_QUERY_INVALID');
      return answer.body.error;
    };
    const of = `policyModule=${MODULE}&policyFunction=${RULE}`;

    beforeAll(async () => {
      target = makeTarget();
      store = await target.connect();
      redis = await connectRedis();
      const keyRing = newKeyRing();
      http = await listen(createTestApp({ store, redis, keyRing, prefix, routes: [] }));
      call = createBearerCaller(http.baseUrl, keyRing);

      await store.rollups.add(acme.tenantId, [
        bucket(1, '09:59', 100, 50, 100, 9),
        bucket(1, '10:00', 4, 1, 10, 4),
        bucket(1, '10:01', 2, 0, 3, 2),
        bucket(1, '10:59', 1, 1, 0.5, 0.5),
        bucket(1, '11:00', 3, 0, 6, 2.5),
        bucket(2, '10:30', 8, 0, 4, 1),
        bucket(2, '12:15', 2, 1, 1.5, 1),
        // Same module, another rule; same rule name, another module: never in MODULE.RULE's series.
        bucket(1, '10:00', 7, 7, 7, 1, { policyFunction: 'other' }),
        bucket(1, '10:00', 7, 7, 7, 1, { policyModule: 'acme.other' }),
      ]);
      // A second connection adds to 10:00 of version 1 (on MongoDB: a second writer's document).
      await (await target.connect()).rollups.add(acme.tenantId, [bucket(1, '10:00', 2, 2, 2, 5)]);
      // Another tenant, same names and minutes: must never show up in acme's answers.
      await store.rollups.add(globex.tenantId, [bucket(1, '10:00', 1000, 999, 2000, 64), bucket(3, '10:01', 500, 0, 250, 1)]);
    }, 60_000);

    afterAll(async () => {
      await http?.close();
      await redis?.quit();
      await removeRedisPrefix(prefix);
      await target?.dispose();
    });

    it('answers each minute of the window, a minute without evaluations with count 0 and nulls', async () => {
      const answer = await series(`${of}&startTime=${at('10:00')}&endTime=${at('10:02')}&step=minute`);
      expect(answer).toEqual({
        policyModule: MODULE,
        policyFunction: RULE,
        step: 'minute',
        from: at('10:00'),
        to: at('10:03'),
        series: [
          {
            version: 1,
            versionId: `${MODULE}@1`,
            total: figures(8, 3, 15, 5),
            points: [point('10:00', 6, 3, 12, 5), point('10:01', 2, 0, 3, 2), point('10:02', 0, 0, 0, 0)],
          },
        ],
      });
      // Without `step` the points are minutes too.
      expect(await series(`${of}&startTime=${at('10:00')}&endTime=${at('10:02')}`)).toEqual(answer);
    });

    it('sums the minutes of each hour exactly, one series per version, the window widened to whole hours', async () => {
      // 10:30 lies in the 10:00 hour, which is answered whole (10:00, 10:01 and 10:59 of version 1).
      const answer = await series(`${of}&startTime=${DAY}T10:30:00Z&endTime=${DAY}T12:00:00%2B00:00&step=hour`);
      expect(answer).toMatchObject({ step: 'hour', from: at('10:00'), to: at('13:00') });
      expect(answer.series).toEqual([
        {
          version: 1,
          versionId: `${MODULE}@1`,
          total: figures(12, 4, 21.5, 5),
          points: [point('10:00', 9, 4, 15.5, 5), point('11:00', 3, 0, 6, 2.5), point('12:00', 0, 0, 0, 0)],
        },
        {
          version: 2,
          versionId: `${MODULE}@2`,
          total: figures(10, 1, 5.5, 1),
          points: [point('10:00', 8, 0, 4, 1), point('11:00', 0, 0, 0, 0), point('12:00', 2, 1, 1.5, 1)],
        },
      ]);
      expect(answer.series[0]!.points[0]).toEqual({ at: at('10:00'), count: 9, failures: 4, failureRate: 4 / 9, meanMs: 15.5 / 9, maxMs: 5 });
    });

    it('sums whole UTC days, and answers times given in any zone as instants', async () => {
      const answer = await series(`${of}&startTime=${DAY}T01:00:00%2B02:00&endTime=2026-04-07T00:00:00Z&step=day`);
      expect(answer).toMatchObject({ step: 'day', from: '2026-04-05T00:00:00.000Z', to: '2026-04-08T00:00:00.000Z' });
      const day = (date: string, count: number, failures: number, timeSum: number, max: number) => ({ at: `${date}T00:00:00.000Z`, ...figures(count, failures, timeSum, max) });
      expect(answer.series.map((s) => s.points)).toEqual([
        [day('2026-04-05', 0, 0, 0, 0), day(DAY, 112, 54, 121.5, 9), day('2026-04-07', 0, 0, 0, 0)],
        [day('2026-04-05', 0, 0, 0, 0), day(DAY, 10, 1, 5.5, 1), day('2026-04-07', 0, 0, 0, 0)],
      ]);
    });

    it('answers only the named version, also one without evaluations, and nothing for an unknown function', async () => {
      const window = `startTime=${at('10:00')}&endTime=${at('12:59')}&step=hour`;
      expect((await series(`${of}&version=2&${window}`)).series.map((s) => [s.version, s.total.count])).toEqual([[2, 10]]);
      const silent = await series(`${of}&version=7&${window}`);
      expect(silent.series).toEqual([
        { version: 7, versionId: `${MODULE}@7`, total: figures(0, 0, 0, 0), points: [point('10:00', 0, 0, 0, 0), point('11:00', 0, 0, 0, 0), point('12:00', 0, 0, 0, 0)] },
      ]);
      expect((await series(`policyModule=${MODULE}&policyFunction=nothing&${window}`)).series).toEqual([]);
      expect((await series(`policyModule=acme.nothing&policyFunction=${RULE}&${window}`)).series).toEqual([]);
    });

    it('shows each tenant its own buckets only, and refuses a token of another tenant', async () => {
      const window = `startTime=${at('10:00')}&endTime=${at('10:01')}`;
      const theirs = await series(`${of}&${window}`, globex);
      expect(theirs.series.map((s) => [s.version, s.points.map((p) => p.count)])).toEqual([
        [1, [1000, 0]],
        [3, [0, 500]],
      ]);
      const ours = await series(`${of}&${window}`);
      expect(ours.series.map((s) => [s.version, s.points.map((p) => p.count)])).toEqual([[1, [6, 2]]]);

      const token = await call(acme, 'ADMIN', 'GET', `${ROLLUPS_ROUTE}?${of}&${window}`, undefined, { 'x-tenant-id': globex.tenantId });
      expect([token.status, (token.body as Envelope).code]).toEqual([403, 'ERR_AUTH_TENANT_MISMATCH']);
    });

    it('is for ADMIN and above', async () => {
      const query = `${of}&startTime=${at('10:00')}&endTime=${at('10:01')}`;
      for (const role of ['VIEWER', 'MEMBER'] as const) {
        const answer = await get<Envelope>(query, acme, role);
        expect([answer.status, answer.body.code], role).toEqual([403, 'ERR_AUTH_ROLE_INSUFFICIENT']);
      }
      expect((await get(query, acme, 'OWNER')).status).toBe(200);
      const anonymous = await fetch(`${http.baseUrl}${ROLLUPS_ROUTE}?${query}`, { headers: { 'x-tenant-id': acme.tenantId } });
      expect([anonymous.status, ((await anonymous.json()) as Envelope).code]).toEqual([401, 'ERR_AUTH_TOKEN_MISSING']);
    });

    it('refuses a bad query with a 400 envelope naming the parameter', async () => {
      const window = `startTime=${at('10:00')}&endTime=${at('11:00')}`;
      const cases: Array<[string, string]> = [
        [`policyFunction=${RULE}&${window}`, '`policyModule` is required'],
        [`policyModule=&policyFunction=${RULE}&${window}`, '`policyModule` is required'],
        [`policyModule=${'m'.repeat(257)}&policyFunction=${RULE}&${window}`, '`policyModule` is 257 characters long: a module name has at most 256'],
        [`policyModule=${MODULE}&${window}`, '`policyFunction` is required'],
        [`${of}&version=-1&${window}`, '`version` must be a whole number'],
        [`${of}&version=1.5&${window}`, '`version` must be a whole number'],
        [`${of}&version=1&version=2&${window}`, '`version` must be given once'],
        [`${of}&endTime=${at('11:00')}`, '`startTime` is required'],
        [`${of}&startTime=${at('10:00')}`, '`endTime` is required'],
        [`${of}&startTime=yesterday&endTime=${at('11:00')}`, '`startTime` must be an ISO 8601 date-time'],
        [`${of}&startTime=${DAY}T10:00:00&endTime=${at('11:00')}`, '`startTime` must be an ISO 8601 date-time'],
        [`${of}&startTime=${at('11:00')}&endTime=${at('10:00')}`, '`startTime` must not be after `endTime`'],
        [`${of}&${window}&step=week`, '`step` must be one of minute, hour, day'],
        [`${of}&${window}&step=hour&step=day`, '`step` must be given once'],
      ];
      for (const [query, message] of cases) expect(await refusal(query), query).toContain(message);
    });

    it('answers at most 1,440 points per series', async () => {
      const day = await series(`${of}&startTime=${at('00:00')}&endTime=${at('23:59')}`);
      expect(day.series.map((s) => s.points.length)).toEqual([1440, 1440]);
      expect(await refusal(`${of}&startTime=${at('00:00')}&endTime=2026-04-07T00:00:00Z`)).toBe(
        `the window from ${at('00:00')} to 2026-04-07T00:01:00.000Z takes 1,441 points at step \`minute\`, more than 1,440 per series: narrow it or take a coarser \`step\``,
      );
      // Sixty days of hours are 1,441 points with both ends; one hour less fits.
      expect(await refusal(`${of}&startTime=2026-01-01T00:00:00Z&endTime=2026-03-02T00:00:00Z&step=hour`)).toContain('1,441 points at step `hour`');
      expect((await series(`${of}&startTime=2026-01-01T00:00:00Z&endTime=2026-03-01T23:00:00Z&step=hour`)).series).toEqual([]);
      expect(await refusal(`${of}&startTime=2020-01-01T00:00:00Z&endTime=2026-01-01T00:00:00Z&step=day`)).toContain('more than 1,440 per series');
    });

    it('answers at most 20 versions, and any one of more when it is named', async () => {
      const versions = (policyFunction: string, count: number) => Array.from({ length: count }, (_, v) => bucket(v + 1, '10:00', 1, 0, 1, 1, { policyFunction }));
      await store.rollups.add(acme.tenantId, [...versions('twenty', 20), ...versions('crowded', 21)]);
      const window = `startTime=${at('10:00')}&endTime=${at('10:00')}`;
      expect((await series(`policyModule=${MODULE}&policyFunction=twenty&${window}`)).series).toHaveLength(20);
      expect(await refusal(`policyModule=${MODULE}&policyFunction=crowded&${window}`)).toBe(
        `more than 20 versions of \`${MODULE}\` \`crowded\` were evaluated in the window: name one with \`version\``,
      );
      const named = await series(`policyModule=${MODULE}&policyFunction=crowded&version=21&${window}`);
      expect(named.series.map((s) => [s.versionId, s.total.count])).toEqual([[`${MODULE}@21`, 1]]);
    });
  });
}

rollupSeriesScenario('rollup series over HTTP on SQLite', sqliteTarget);

describeWithMongo('rollup series on MongoDB', (url) => {
  rollupSeriesScenario('rollup series over HTTP on MongoDB', () => mongoTarget(url));
});
