// GraphQL benchmark: a signed `evaluateLoanEligibility` query against evaluate-source running the
// same rule (policies/lending.loan.policy) with the same inputs, both at 64 connections on the same
// service in the same run. The service is the built one (role `all`: API, BullMQ
// `policy-evaluate` queue and worker threads in one process, SQLite store in a temp DATA_DIR, local
// Redis under a unique key prefix), started as bench/http/run.mjs starts it. Target: GraphQL ≥
// 0.70× the requests/s of evaluate-source. Run through `npm run bench:graphql` (QUICK=1 for a tiny run).
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { prepareBenchService, removeBenchService, startBenchService } from '../support/bench-service.mjs';
import { projectRoot, stopChild } from '../support/child-process.mjs';
import { loadAutocannon, runAutocannon, summariseRun } from '../support/load.mjs';
import { signedPool, signedPost } from '../support/signed-requests.mjs';
import { fmt, printTable } from '../support/table.mjs';

const quick = process.env.QUICK === '1';

const CONNECTIONS = 64;
const DURATION_S = quick ? 1 : 10;
const WARMUP_S = quick ? 1 : 3;
const TARGET_RATIO = 0.7;
const GRAPHQL_PATH = '/graphql';
const SOURCE_PATH = '/api/v1/policies/evaluate-source';
// Signatures made before the clock starts; more than any run here can use (checked after each run).
const SIGNATURE_RATE_CAP = 15_000;

const LOAN_SOURCE = readFileSync(join(projectRoot, 'policies', 'lending.loan.policy'), 'utf8');
const RULE = 'evaluateLoanEligibility';
/** [application, applicant]: eligible, reduced with conditions, rejected. */
const SAMPLES = [
  [
    { requestedAmount: 10000, termMonths: 24, purpose: 'CAR' },
    { age: 30, annualIncome: 60000, creditScore: 720, monthlyDebt: 500, yearsEmployed: 3 },
  ],
  [
    { requestedAmount: 50000, termMonths: 60, purpose: 'BUSINESS' },
    { age: 45, annualIncome: 48000, creditScore: 660, monthlyDebt: 1600, yearsEmployed: 5 },
  ],
  [
    { requestedAmount: 1000, termMonths: 90, purpose: 'CAR' },
    { age: 17, annualIncome: 0, creditScore: 550, monthlyDebt: 100, yearsEmployed: 0 },
  ],
];
const SELECTION = 'eligible maxApprovedAmount interestRate term conditions rejectionReasons';
const QUERY = `query Loan($application: LoanApplication!, $applicant: LoanApplicant!) {
  evaluateLoanEligibility(application: $application, applicant: $applicant) { ${SELECTION} }
}`;
const graphqlBodies = SAMPLES.map(([application, applicant]) => JSON.stringify({ query: QUERY, variables: { application, applicant } }));
// The same rule with the same arguments as a positional context, as the GraphQL layer passes them.
const sourceBodies = SAMPLES.map((context) => JSON.stringify({ source: LOAN_SOURCE, functionName: RULE, context, locale: 'en-US' }));

const cannon = (autocannon, options) => runAutocannon(autocannon, { ...options, connections: CONNECTIONS });

/** Both endpoints must give the same decision for every sample before anything is timed. */
async function checkAnswers(base, secret) {
  for (let i = 0; i < SAMPLES.length; i++) {
    const viaGraphql = await signedPost(base, GRAPHQL_PATH, graphqlBodies[i], secret);
    const viaSource = await signedPost(base, SOURCE_PATH, sourceBodies[i], secret);
    if (viaGraphql.status !== 200 || viaGraphql.body?.errors || !viaGraphql.body?.data?.[RULE]) {
      throw new Error(`GraphQL sample ${i} failed: ${viaGraphql.status} ${JSON.stringify(viaGraphql.body)}`);
    }
    if (viaSource.status !== 200 || viaSource.body?.error) {
      throw new Error(`evaluate-source sample ${i} failed: ${viaSource.status} ${JSON.stringify(viaSource.body)}`);
    }
    if (JSON.stringify(viaGraphql.body.data[RULE]) !== JSON.stringify(viaSource.body.result)) {
      throw new Error(`sample ${i}: GraphQL answered ${JSON.stringify(viaGraphql.body.data[RULE])}, evaluate-source ${JSON.stringify(viaSource.body.result)}`);
    }
  }
}

async function main() {
  const autocannon = loadAutocannon();
  const service = await prepareBenchService('graphql');
  const { base, secret } = service;

  console.log(`# GraphQL vs evaluate-source${quick ? ' (QUICK)' : ''}`);
  console.log(`machine: ${cpus().length} CPUs (${availableParallelism()} available), ${cpus()[0]?.model ?? 'unknown'}; Node ${process.version}`);
  console.log(
    `workload: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up then ${DURATION_S} s per endpoint, ${SAMPLES.length} loan applications in turn;` +
      ` every request signed (HMAC, single-use nonce), rate-limited and audited`,
  );

  console.log('service: the built service (dist/src/main.js, role all)');
  const rows = [];
  let running = null;
  try {
    running = await startBenchService(service);
    await checkAnswers(base, secret);
    const size = SIGNATURE_RATE_CAP * (WARMUP_S + DURATION_S);

    const source = signedPool(sourceBodies, SOURCE_PATH, secret, size);
    summariseRun('warm-up', await cannon(autocannon, { url: base, duration: WARMUP_S, requests: source.requests }));
    rows.push(summariseRun(`(a) POST ${SOURCE_PATH}, lending.loan source`, await cannon(autocannon, { url: base, duration: DURATION_S, requests: source.requests })));

    const graphql = signedPool(graphqlBodies, GRAPHQL_PATH, secret, size);
    summariseRun('warm-up', await cannon(autocannon, { url: base, duration: WARMUP_S, requests: graphql.requests }));
    rows.push(summariseRun(`(b) POST ${GRAPHQL_PATH}, ${RULE} query`, await cannon(autocannon, { url: base, duration: DURATION_S, requests: graphql.requests })));

    // The answers must still be right after the load.
    await checkAnswers(base, secret);

    const [a, b] = rows;
    console.log('');
    printTable(
      ['run', 'requests', 'requests/s', 'p50 ms', 'p99 ms', 'requests/s vs (a)'],
      rows.map((row) => [row.run, fmt(row.requests), fmt(row.reqPerSec), fmt(row.p50, 1), fmt(row.p99, 1), `${fmt(row.reqPerSec / a.reqPerSec, 2)}×`]),
    );
    const ratio = b.reqPerSec / a.reqPerSec;
    console.log('');
    console.log(`target: GraphQL ≥ ${fmt(TARGET_RATIO, 2)}× evaluate-source requests/s: ${ratio >= TARGET_RATIO ? 'met' : 'missed'} (${fmt(ratio, 2)}×)`);
    console.log(`signed requests used: ${fmt(source.used())} evaluate-source, ${fmt(graphql.used())} GraphQL (each nonce once)`);
  } finally {
    if (running) await stopChild(running).catch((error) => console.error(String(error)));
    await removeBenchService(service);
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
