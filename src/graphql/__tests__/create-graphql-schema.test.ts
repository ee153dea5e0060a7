import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { EvaluationOutcome, EvaluationSuccess } from '../../engine/index.js';
import { NoWorkerAvailableError } from '../../evaluation/index.js';
import { createGraphqlSchema } from '../create-graphql-schema.js';
import type { DecideFn } from '../decide.js';
import type { GraphqlContext } from '../graphql-context.js';
import type { PolicyView } from '../policy-reader.js';

const schema = createGraphqlSchema();

const ok = (value: EvaluationSuccess['value']): EvaluationOutcome => ({ kind: 'evaluated', ok: true, value, moduleName: 'm', executionTimeMs: 1 });

interface Logged {
  level: 'error' | 'warn';
  details: object;
  message: string;
}

/** A stand-in evaluation: the outcome of each decision asked for. */
type Outcome = (...args: Parameters<DecideFn>) => Promise<EvaluationOutcome>;

function run(
  source: string,
  parts: {
    decide?: Outcome;
    /** Each evaluated decision's receipt: `r<n>`/`h<n>` for the n-th call (from 1); none without it. */
    receipts?: boolean;
    policies?: PolicyView[];
    sources?: Record<string, string>;
    variables?: Record<string, unknown>;
  } = {},
) {
  const logged: Logged[] = [];
  const calls: unknown[][] = [];
  const pages: unknown[] = [];
  const sourceReads: string[] = [];
  const decide: DecideFn = async (...args) => {
    calls.push(args);
    const n = calls.length;
    if (!parts.decide) throw new Error('no decision expected');
    const result = await parts.decide(...args);
    return parts.receipts ? { result, receipt: { id: `r${n}`, contentHash: `h${n}` } } : { result };
  };
  const receipts = new Map<string, { id: string; contentHash: string }>();
  const views = parts.policies ?? [];
  const contextValue: GraphqlContext = {
    tenantId: 'acme',
    role: 'MEMBER',
    actorId: 'gateway:MEMBER',
    decide,
    policies: {
      get: async (_tenantId, id) => views.find((view) => view.id === id) ?? null,
      list: async (_tenantId, page) => {
        pages.push(page);
        return views.slice(page.page * page.size, (page.page + 1) * page.size);
      },
      source: async (_tenantId, policyModule, version) => {
        sourceReads.push(`${policyModule}@${version}`);
        const source = parts.sources?.[`${policyModule}@${version}`];
        if (source === undefined) throw new Error(`no source for ${policyModule}@${version}`);
        return source;
      },
    },
    log: {
      error: (details, message) => logged.push({ level: 'error', details, message }),
      warn: (details, message) => logged.push({ level: 'warn', details, message }),
    },
    receipts,
  };
  return Promise.resolve(execute({ schema, document: parse(source), contextValue, variableValues: parts.variables ?? null })).then((result) => ({
    result: JSON.parse(JSON.stringify(result)) as { data?: Record<string, unknown> | null; errors?: Array<Record<string, unknown>> },
    calls,
    logged,
    pages,
    sourceReads,
    receipts,
  }));
}

const CLAIM = `processClaim(
  claim: { claimId: "7", amount: 10.5, category: "PRIMARY", diagnosisCode: "X", hasDocumentation: true, daysSinceService: 1 }
  provider: { providerId: "p", inNetwork: true, qualityScore: 1 }
  patientCoverage: 50
)`;

const claimValue = (denialReason: string) => ({
  approved: denialReason === '',
  approvedAmount: 5.25,
  denialReason,
  requiredDocuments: [],
  referenceNumber: 'CLM-7',
});

describe('domain resolvers', () => {
  it('call decide once with the caller, module, rule and the arguments as separate plain parameters in order', async () => {
    const { result, calls } = await run(`{ ${CLAIM} { referenceNumber } }`, { decide: async () => ok(claimValue('')) });
    expect(result).toEqual({ data: { processClaim: { referenceNumber: 'CLM-7' } } });
    expect(calls).toEqual([
      [
        { tenantId: 'acme', actorId: 'gateway:MEMBER' },
        'healthcare.claims',
        'processClaim',
        [
          { claimId: '7', amount: 10.5, category: 'PRIMARY', diagnosisCode: 'X', hasDocumentation: true, daysSinceService: 1 },
          { providerId: 'p', inNetwork: true, qualityScore: 1 },
          50,
        ],
      ],
    ]);
    const [claim] = calls[0]![3] as [object];
    expect(Object.getPrototypeOf(claim)).toBe(Object.prototype);
  });

  it('keep argument order even when the query writes them in another order', async () => {
    const { calls } = await run(
      `{ evaluateLoanEligibility(
          applicant: { age: 30, annualIncome: 1, creditScore: 1, monthlyDebt: 0, yearsEmployed: 1 }
          application: { requestedAmount: 1, termMonths: 12, purpose: "CAR" }
        ) { eligible } }`,
      { decide: async () => ok({ eligible: false }) },
    );
    expect((calls[0]![3] as Array<Record<string, unknown>>).map((arg) => Object.keys(arg)[0])).toEqual(['requestedAmount', 'age']);
  });

  it('turn an empty denialReason into null and keep a real one', async () => {
    const none = await run(`{ ${CLAIM} { approved denialReason } }`, { decide: async () => ok(claimValue('')) });
    expect(none.result.data).toEqual({ processClaim: { approved: true, denialReason: null } });
    const denied = await run(`{ ${CLAIM} { approved denialReason } }`, { decide: async () => ok(claimValue('no coverage')) });
    expect(denied.result.data).toEqual({ processClaim: { approved: false, denialReason: 'no coverage' } });
  });

  it('report a failed evaluation with its message and diagnostic code, at the field only', async () => {
    const failure: EvaluationOutcome = {
      kind: 'evaluated',
      ok: false,
      code: 'PL3004',
      diagnostics: [
        {
          code: 'PL3004',
          severity: 'error',
          message: '`patientCoverage` must be between 0 and 100',
          span: { start: 0, end: 1, line: 12, column: 5, endLine: 12, endColumn: 9 },
        },
      ],
      error: 'PL3004 `patientCoverage` must be between 0 and 100 at 12:5',
      executionTimeMs: 2,
    };
    const { result } = await run(`{ __typename ${CLAIM} { approved } }`, { decide: async () => failure });
    expect(result).toEqual({
      data: { __typename: 'Query', processClaim: null },
      errors: [
        {
          message: '`patientCoverage` must be between 0 and 100',
          locations: [{ line: 1, column: 14 }],
          path: ['processClaim'],
          extensions: {
            code: 'PL3004',
            policyModule: 'healthcare.claims',
            policyFunction: 'processClaim',
            policyLocation: { line: 12, column: 5 },
          },
        },
      ],
    });
  });

  it('keep each evaluated decision\'s receipt under its response key, failed decisions included', async () => {
    const failure: EvaluationOutcome = { kind: 'evaluated', ok: false, code: 'PL3004', diagnostics: [], error: 'PL3004 no', executionTimeMs: 1 };
    let asked = 0;
    const { result, receipts } = await run(`{ first: ${CLAIM} { approved } second: ${CLAIM} { approved } }`, {
      receipts: true,
      decide: async () => (++asked === 1 ? ok(claimValue('')) : failure),
    });
    expect(result.data).toEqual({ first: { approved: true }, second: null });
    expect(Object.fromEntries(receipts)).toEqual({ first: { id: 'r1', contentHash: 'h1' }, second: { id: 'r2', contentHash: 'h2' } });
  });

  it('keep no receipt for a decision that was not evaluated', async () => {
    const notSeen: EvaluationOutcome = { kind: 'evaluated', ok: false, code: 'ERR_POLICY_NOT_FOUND', diagnostics: [], error: 'no module', executionTimeMs: 0 };
    const { result, receipts } = await run(`{ ${CLAIM} { approved } }`, { decide: async () => notSeen });
    expect(result.errors![0]).toMatchObject({ extensions: { code: 'ERR_POLICY_NOT_FOUND' } });
    expect(receipts.size).toBe(0);
  });

  it('report a failure without a diagnostic with the engine error and a code of its own', async () => {
    const failure: EvaluationOutcome = {
      kind: 'evaluated',
      ok: false,
      code: 'ERR_EVALUATION_THREAD_STOPPED',
      diagnostics: [],
      error: 'evaluation thread stopped unexpectedly',
      executionTimeMs: 0,
    };
    const { result } = await run(`{ ${CLAIM} { approved } }`, { decide: async () => failure });
    expect(result.errors![0]).toMatchObject({ message: 'evaluation thread stopped unexpectedly', extensions: { code: 'ERR_EVALUATION_THREAD_STOPPED' } });
  });

  it('refuse a value that is not a record', async () => {
    const { result } = await run(`{ ${CLAIM} { approved } }`, { decide: async () => ok([1, 2]) });
    expect(result.errors![0]).toMatchObject({
      message: 'healthcare.claims.processClaim returned a list, not a record',
      extensions: { code: 'ERR_GRAPHQL_RESULT_INVALID' },
    });
  });

  it('pass unavailability on with its message', async () => {
    const { result, logged } = await run(`{ ${CLAIM} { approved } }`, {
      decide: async () => {
        throw new NoWorkerAvailableError(5000);
      },
    });
    expect(result.errors![0]).toMatchObject({
      message: 'policy evaluation is unavailable: no evaluation worker answered within 5000 ms; retry later',
      extensions: { code: 'ERR_EVALUATION_UNAVAILABLE' },
    });
    expect(logged).toEqual([]);
  });

  it('log an unexpected fault and show only its reference', async () => {
    const { result, logged } = await run(`{ ${CLAIM} { approved } }`, {
      decide: async () => {
        throw new TypeError('cannot read properties of undefined');
      },
    });
    const message = result.errors![0]!.message as string;
    const reference = /^internal error; reference ([0-9a-f-]{36})$/.exec(message)?.[1];
    expect(reference).toBeDefined();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 'error', details: { ref: reference } });
  });
});

describe('policy resolvers', () => {
  const view = (id: string, tenantId?: string): PolicyView => ({
    id,
    ...(tenantId ? { tenantId } : {}),
    policyModule: 'lending.loan',
    policyFunction: 'evaluateLoanEligibility',
    version: 3,
    status: 'RETIRED',
    createdAt: 'c',
    updatedAt: 'u',
    source: 's',
  });

  it('show a policy with every field, and null for an unknown id', async () => {
    const { result } = await run(
      '{ found: getPolicy(id: "a") { id policyModule policyFunction version status createdAt updatedAt source } missing: getPolicy(id: "zz") { id } }',
      { policies: [view('a')] },
    );
    expect(result).toEqual({ data: { found: view('a'), missing: null } });
  });

  it("never show a policy the registry reports as another tenant's", async () => {
    const { result, logged } = await run('{ getPolicy(id: "b") { id } listPolicies { id } }', { policies: [view('a', 'acme'), view('b', 'globex')] });
    expect(result).toEqual({ data: { getPolicy: null, listPolicies: [{ id: 'a' }] } });
    expect(logged.filter((entry) => entry.level === 'warn')).toHaveLength(2);
  });

  it('list the first page without arguments and the page asked for with them', async () => {
    const views = Array.from({ length: 45 }, (_, i) => view(`p${i}`));
    const first = await run('{ listPolicies { id } }', { policies: views });
    expect((first.result.data!.listPolicies as unknown[]).length).toBe(20);
    expect(first.pages).toEqual([{ page: 0, size: 20 }]);
    const third = await run('query ($p: Int) { listPolicies(page: $p, size: 20) { id } }', { policies: views, variables: { p: 2 } });
    expect(third.result.data).toEqual({ listPolicies: views.slice(40).map(({ id }) => ({ id })) });
  });

  it('refuse paging arguments out of bounds with a coded error, reading nothing', async () => {
    for (const [args, message] of [
      ['size: 101', '`listPolicies(size:)` must be a whole number from 1 to 100 (got 101)'],
      ['size: 0', '`listPolicies(size:)` must be a whole number from 1 to 100 (got 0)'],
      ['page: -1', '`listPolicies(page:)` must be a whole number from 0 to 1000000 (got -1)'],
      ['size: null', '`listPolicies(size:)` must be a whole number from 1 to 100 (got null)'],
    ] as const) {
      const { result, pages } = await run(`{ listPolicies(${args}) { id } }`, { policies: [view('a')] });
      expect(result.data, args).toBeNull();
      expect(result.errors, args).toEqual([expect.objectContaining({ message, extensions: { code: 'ERR_GRAPHQL_ARGUMENT_INVALID' } })]);
      expect(pages).toEqual([]);
    }
  });

  it("read a listed policy's source from its version once per request, however many rules and aliases ask", async () => {
    const listedView = (id: string, version: number): PolicyView => {
      const { source: _source, ...rest } = view(id);
      return { ...rest, version };
    };
    const { result, sourceReads } = await run('{ a: listPolicies { id source } b: listPolicies { source } }', {
      policies: [listedView('r1', 1), listedView('r2', 1), listedView('r3', 2)],
      sources: { 'lending.loan@1': 'one', 'lending.loan@2': 'two' },
    });
    expect(result).toEqual({
      data: {
        a: [{ id: 'r1', source: 'one' }, { id: 'r2', source: 'one' }, { id: 'r3', source: 'two' }],
        b: [{ source: 'one' }, { source: 'one' }, { source: 'two' }],
      },
    });
    expect(sourceReads.sort()).toEqual(['lending.loan@1', 'lending.loan@2']);
  });
});
