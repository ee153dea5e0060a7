import { serviceVersion } from '../api/index.js';
import { describeRedis, describeStore, redisConnection, storeLocation, type Config, type ProcessRole } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { ROLE_PARTS } from './role-parts.js';
import type { RunningPart } from './running-part.js';
import { closeRuntime, openRuntime, type Runtime } from './runtime.js';

export interface Service {
  role: ProcessRole;
  runtime: Runtime;
  parts: readonly RunningPart[];
  /**
   * Stops the parts in reverse order, then closes the shared connections. Each of those steps gets
   * the grace for requests in flight and a margin; one that takes longer (a queue worker waiting on
   * a Redis that went away) is left behind, and the stop fails naming it, so the process still ends.
   */
  stop(): Promise<void>;
}

/** Beyond SHUTDOWN_GRACE_SECONDS, what a step of the stop may take to finish a job and close its connections. */
const STOP_MARGIN_MS = 5000;

/** Opens the runtime and starts the role's parts; a part that fails to start stops those before it. */
export async function startService(role: ProcessRole, config: Config, logger: Logger): Promise<Service> {
  const runtime = await openRuntime(config, logger, role);
  const parts: RunningPart[] = [];
  const bound = config.SHUTDOWN_GRACE_SECONDS * 1000 + STOP_MARGIN_MS;
  const stop = async () => {
    const late: string[] = [];
    const step = async (name: string, stopping: () => Promise<void>) => {
      const settled = stopping().then(
        () => true,
        (error: unknown) => {
          logger.error({ err: error, part: name }, 'part failed to stop cleanly');
          return true;
        },
      );
      let timer: NodeJS.Timeout | undefined;
      const inTime = await Promise.race([settled, new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), bound)))]);
      clearTimeout(timer);
      if (!inTime) {
        logger.error({ part: name, waitedMs: bound }, 'part did not stop in time: left behind');
        late.push(name);
      }
    };
    for (const part of [...parts].reverse()) await step(part.name, () => part.stop());
    await step('connections', () => closeRuntime(runtime));
    if (late.length > 0) throw new Error(`did not stop within ${bound / 1000} s each: ${late.join(', ')}`);
  };
  try {
    for (const start of ROLE_PARTS[role]) parts.push(await start(runtime));
  } catch (error) {
    // What failed to start is the error to report; a part left behind is logged by the stop.
    await stop().catch(() => undefined);
    throw error;
  }
  return { role, runtime, parts, stop };
}

export interface StartupSettings {
  /** The .env file read, if any. */
  envFile: string | null;
  /** Where a private redis-server keeps its files, when the process started one. */
  privateRedisDir: string | null;
}

/** One line for the person who started it, beside the JSON logs (on stderr, so log pipes stay JSON). */
export function startupLine(service: Service, settings: StartupSettings = { envFile: null, privateRedisDir: null }): string {
  const { version } = serviceVersion();
  const { config, store } = service.runtime;
  const storeText = describeStore(storeLocation(config));
  const api = service.parts.find((part) => part.name === 'api')?.url;
  const metrics = service.parts.find((part) => part.name === 'metrics')?.url;
  const serving =
    api !== undefined
      ? `API at ${api} (console ${api}/console, API reference ${api}/docs, metrics ${api}/metrics)`
      : metrics !== undefined
        ? `no API in this role, metrics at ${metrics}`
        : 'no API in this role';
  const redis = settings.privateRedisDir === null ? '' : ` (a private redis-server started because none answered, its files in ${settings.privateRedisDir}; it stops with the service)`;
  const ways = api === undefined ? '' : `; ${waysIn(config)}`;
  const from = settings.envFile === null ? '' : `; settings from ${settings.envFile} and the environment`;
  return `policy engine ${version} started, role ${service.role}: ${serving}; ${storeText}; Redis ${describeRedis(redisConnection(config))}${redis}${ways}${from}. Stop with Ctrl-C.\n`;
}

/** How callers authenticate, so a gateway trusted by mistake is seen at once. */
function waysIn(config: Config): string {
  const provider = config.JWT_JWKS_URL === undefined ? [] : [`tokens of ${config.JWT_ISSUER} (keys at ${config.JWT_JWKS_URL})`];
  const tokens = [...(config.JWT_DEVELOPMENT_TOKENS ? ['development tokens'] : []), ...provider].join(' and ');
  const networks = config.TRUSTED_GATEWAY_CIDRS?.map((network) => `${network.address}/${network.prefix}`).join(', ');
  const gateway = networks === undefined ? '' : `, header-only requests from the trusted gateway at ${networks}${config.TRUSTED_GATEWAY_SECRET === undefined ? '' : ' with its secret'}`;
  return `accepts ${tokens}, signed requests${gateway}`;
}
