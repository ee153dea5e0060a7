/**
 * A live demo against a running service: the tenant `demo`, an operator token, demo modules with a
 * flaky version, a burst of traffic that opens each of the three anomaly types, and workflows
 * waiting for a signal; then what to paste into the console and what to look at.
 *   npm run demo [-- --url http://localhost:8080] [--timeout 150]
 * Running it again reuses what is there. How and why: docs/demo.md.
 */
import { InvalidArgumentError } from 'commander';
import { createTenantService, TenantExistsError } from '../src/tenants/index.js';
import { createProgram, isEntryPoint, loadCliConfig, runAsEntryPoint, runProgram, type CliIo } from './cli-io.js';
import { awaitAnomalies, ensureDetectionSettings } from './demo/demo-anomalies.js';
import { claimsContext, loanContext, LONG_HISTORY_CLAIMS, SHORT_HISTORY_CLAIMS, driverContext } from './demo/demo-contexts.js';
import { loadDemoModules } from './demo/demo-library.js';
import { startDemoWorkflows } from './demo/demo-workflows.js';
import { ensureDeployed } from './demo/deploy-modules.js';
import { ensurePerformanceBaseline } from './demo/performance-baseline.js';
import { createServiceApi, ServiceAnswerError } from './demo/service-api.js';
import { driveTraffic } from './demo/traffic.js';
import { mintDevelopmentToken } from './development-token.js';
import { withStore } from './store-access.js';

export const DEMO_TENANT = 'demo';
const OPERATOR = 'demo-operator';
/** The token's lifetime: a working day, within JWT_MAX_LIFETIME_SECONDS. */
const TOKEN_TTL_SECONDS = 12 * 3600;
const range = (length: number, from = 0) => Array.from({ length }, (_, i) => from + i);

function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('must be an http(s) URL such as http://localhost:8080');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('must be an http(s) URL such as http://localhost:8080');
  return url.origin;
}

function seconds(text: string): number {
  const value = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 10 && value <= 3600)) throw new InvalidArgumentError('must be a whole number of seconds between 10 and 3600');
  return value;
}

/** Registers the tenant unless it exists (its signing secret is not needed: the demo uses a bearer token). */
async function ensureTenant(io: CliIo): Promise<boolean> {
  return withStore(io, async (store) => {
    try {
      await createTenantService(store.tenants).register(DEMO_TENANT);
      return true;
    } catch (error) {
      if (error instanceof TenantExistsError) return false;
      throw error;
    }
  });
}

async function runDemo(options: { url?: string; timeout: number }, io: CliIo): Promise<void> {
  const config = loadCliConfig(io);
  const url = options.url ?? `http://localhost:${config.PORT}`;
  // Asked first, so a service that is not running costs one line and changes nothing.
  await createServiceApi(url, null).call('GET', '/healthz');
  const modules = await loadDemoModules();

  io.out(`demo against ${url}`);
  const ttlSeconds = Math.min(TOKEN_TTL_SECONDS, config.JWT_MAX_LIFETIME_SECONDS);
  const { token, ring } = await mintDevelopmentToken(config, { subject: OPERATOR, tenantId: DEMO_TENANT, role: 'ADMIN', ttlSeconds });
  const api = createServiceApi(url, { token, tenantId: DEMO_TENANT });
  try {
    await api.call('GET', '/api/v1/audit/anomaly-settings');
  } catch (error) {
    if (error instanceof ServiceAnswerError && error.status === 401) {
      throw new ServiceAnswerError(401, error.code, 'the service', `it refuses a token signed with key \`${ring.signingKey.kid}\` of ${ring.source}: run the demo with the service's DATA_DIR or JWT_KEYS`);
    }
    throw error;
  }
  // After the token is accepted: a service that keeps other keys keeps another store too.
  io.out(`tenant \`${DEMO_TENANT}\`: ${(await ensureTenant(io)) ? 'created' : 'exists already'}`);

  io.out('anomaly detection:');
  await ensureDetectionSettings(api, io);

  io.out('modules:');
  const versions = new Map<string, number>();
  for (const module of modules) for (const [file, version] of await ensureDeployed(api, module, io)) versions.set(file, version);
  const healthcare = modules.find((module) => module.policyModule === 'healthcare.demo')!.versions[0]!;

  io.out('baseline:');
  await ensurePerformanceBaseline(
    api,
    {
      tenantId: DEMO_TENANT,
      policyModule: 'healthcare.demo',
      policyFunction: 'reviewClaims',
      version: versions.get(healthcare.file)!,
      source: healthcare.source,
      contexts: range(40).map((n) => claimsContext(n, SHORT_HISTORY_CLAIMS)),
    },
    io,
  );

  io.out('traffic:');
  await driveTraffic(
    api,
    [
      { policyModule: 'lending.demo', policyFunction: 'assessLoan', contexts: range(80).map(loanContext) },
      { policyModule: 'lending.demo', policyFunction: 'assessLoan', version: versions.get('lending.demo.1')!, contexts: range(40, 1000).map(loanContext) },
      { policyModule: 'healthcare.demo', policyFunction: 'reviewClaims', contexts: range(40).map((n) => claimsContext(n, LONG_HISTORY_CLAIMS)) },
      { policyModule: 'insurance.demo', policyFunction: 'quotePremium', contexts: range(40).map((n) => driverContext(n)) },
    ],
    io,
  );

  io.out('workflows:');
  const waiting = await startDemoWorkflows(api, io);

  io.out('anomalies:');
  const anomalies = await awaitAnomalies(api, { config, tenantId: DEMO_TENANT, modules: new Set(modules.map((m) => m.policyModule)), timeoutSeconds: options.timeout }, io);
  for (const anomaly of anomalies) io.out(`  ${anomaly.type} ${anomaly.severity} ${anomaly.versionId}: ${anomaly.summary}`);

  const hours = Math.round(ttlSeconds / 360) / 10;
  io.out('');
  io.out(`console: ${url}/console`);
  io.out(`tenant:  ${DEMO_TENANT}`);
  io.out(`token (role ADMIN, ${hours} h; paste it into the console's sign-in):`);
  io.out(token);
  io.out('');
  io.out('what to look at:');
  io.out('  - Anomalies: the three open ones; open one for its numbers, chart and recommended actions, then verify, resolve or dismiss it');
  io.out(`  - Policies: lending.demo (version 2 fails for applicants in their first year; roll back to version ${versions.get('lending.demo.1')}), healthcare.demo, insurance.demo`);
  io.out(`  - Workflows: ${waiting} underwriting workflows wait for "underwriter-approval"; send it from a workflow's page`);
  io.out('  - Audit: every deploy, evaluation and anomaly in the tenant\'s chain; verify it');
}

export async function runDemoCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram('demo', io)
    .description(`set up the tenant \`${DEMO_TENANT}\` on a running service with traffic, open anomalies and waiting workflows, for the console`)
    .option('--url <url>', 'the running service (default: http://localhost:<PORT> of the configuration)', baseUrl)
    .option('--timeout <seconds>', 'how long to wait for detection to open the anomalies', seconds, 150)
    .action((options: { url?: string; timeout: number }) => runDemo(options, io));
  return runProgram(program, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runDemoCli);
