/**
 * The demo tenant's detection settings, detection on demand, and the wait until the three anomaly
 * types are open.
 */
import { createAnomalyJobQueues, type DetectionRun } from '../../src/anomalies/index.js';
import type { Config } from '../../src/config/index.js';
import { CliError, type CliIo } from '../cli-io.js';
import type { ServiceApi } from './service-api.js';

export const ANOMALY_TYPES = ['HIGH_FAILURE_RATE', 'ZOMBIE_VERSION', 'PERFORMANCE_DEGRADATION'] as const;
export type AnomalyType = (typeof ANOMALY_TYPES)[number];

/**
 * Settings that let a short burst count: the shortest window, a few samples, a superseded version
 * a zombie at once, and open anomalies kept open (no auto-resolution) for the operator to triage.
 */
export const DEMO_DETECTION_SETTINGS: Readonly<Record<string, number>> = {
  windowMinutes: 5,
  minSamples: 20,
  zombieGraceMinutes: 0,
  autoResolveMinutes: 0,
};

const SETTINGS_ROUTE = '/api/v1/audit/anomaly-settings';
const ANOMALIES_ROUTE = '/api/v1/audit/anomalies';
const POLL_MS = 2000;
/** How long an on-demand detection may wait for a worker before the scheduled rounds are waited for instead. */
const ON_DEMAND_TIMEOUT_MS = 30_000;

export interface AnomalyItem {
  id: string;
  type: string;
  policyModule: string;
  versionId: string;
  status: string;
  severity: string;
  summary: string;
}

/** Replaces the tenant's overrides with the demo's, unless they are those already (each change is an audit record). */
export async function ensureDetectionSettings(api: ServiceApi, io: CliIo): Promise<void> {
  const current = await api.call<{ overrides: Record<string, number | null> }>('GET', SETTINGS_ROUTE);
  const set = Object.entries(current.overrides).filter(([, value]) => value !== null);
  const same = set.length === Object.keys(DEMO_DETECTION_SETTINGS).length && set.every(([name, value]) => DEMO_DETECTION_SETTINGS[name] === value);
  const shown = Object.entries(DEMO_DETECTION_SETTINGS).map(([name, value]) => `${name} ${value}`).join(', ');
  if (same) {
    io.out(`  detection settings of the tenant are the demo's already (${shown})`);
    return;
  }
  await api.call('PUT', SETTINGS_ROUTE, DEMO_DETECTION_SETTINGS);
  io.out(`  detection settings of the tenant set to ${shown}`);
}

/**
 * Queues a detection round for the tenant on the configured Redis, as `npm run anomalies -- detect`
 * does; false (with a line saying why) when no worker there finished it, e.g. a service with a
 * private Redis: its scheduled round comes within ANOMALY_DETECT_INTERVAL_SECONDS.
 */
async function detectNow(config: Config, tenantId: string, io: CliIo): Promise<boolean> {
  const queues = createAnomalyJobQueues({ connection: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX });
  try {
    const run = (await queues.runDetection(tenantId, ON_DEMAND_TIMEOUT_MS)) as DetectionRun;
    const report = run.tenants[0];
    if (report !== undefined) io.out(`  detection round: ${report.assessed} versions assessed, ${report.opened} anomalies opened, ${report.updated + report.unchanged} still found`);
    return true;
  } catch (error) {
    io.out(`  no on-demand detection (${(error as Error).message}): waiting for the service's scheduled round`);
    return false;
  } finally {
    await queues.close();
  }
}

async function openAnomalies(api: ServiceApi, modules: ReadonlySet<string>): Promise<Map<string, AnomalyItem>> {
  const page = await api.call<{ content: AnomalyItem[] }>('GET', `${ANOMALIES_ROUTE}?size=100`);
  const open = new Map<string, AnomalyItem>();
  for (const anomaly of page.content) {
    if (anomaly.status === 'OPEN' && modules.has(anomaly.policyModule) && !open.has(anomaly.type)) open.set(anomaly.type, anomaly);
  }
  return open;
}

/** Runs detection and waits, at most `timeoutSeconds`, until an anomaly of each type is open for the demo's modules. */
export async function awaitAnomalies(
  api: ServiceApi,
  options: { config: Config; tenantId: string; modules: ReadonlySet<string>; timeoutSeconds: number },
  io: CliIo,
): Promise<AnomalyItem[]> {
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  await detectNow(options.config, options.tenantId, io);
  for (;;) {
    const open = await openAnomalies(api, options.modules);
    const missing = ANOMALY_TYPES.filter((type) => !open.has(type));
    if (missing.length === 0) return ANOMALY_TYPES.map((type) => open.get(type)!);
    if (Date.now() >= deadline) {
      throw new CliError(
        `after ${options.timeoutSeconds} s no ${missing.join(', ')} anomaly is open for the demo's modules: is a worker running (role all or worker)? ` +
          'Wait for the next detection round and run the demo again, or give it longer with --timeout',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
