import { serviceVersion } from '../api/index.js';
import { describeStore, redactUrl, storeLocation, type Config, type ProcessRole } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { ROLE_PARTS } from './role-parts.js';
import type { RunningPart } from './running-part.js';
import { closeRuntime, openRuntime, type Runtime } from './runtime.js';

export interface Service {
  role: ProcessRole;
  runtime: Runtime;
  parts: readonly RunningPart[];
  /** Stops the parts in reverse order, then closes the shared connections. */
  stop(): Promise<void>;
}

/** Opens the runtime and starts the role's parts; a part that fails to start stops those before it. */
export async function startService(role: ProcessRole, config: Config, logger: Logger): Promise<Service> {
  const runtime = await openRuntime(config, logger, role);
  const parts: RunningPart[] = [];
  const stop = async () => {
    for (const part of [...parts].reverse()) {
      try {
        await part.stop();
      } catch (error) {
        logger.error({ err: error, part: part.name }, 'part failed to stop cleanly');
      }
    }
    await closeRuntime(runtime);
  };
  try {
    for (const start of ROLE_PARTS[role]) parts.push(await start(runtime));
  } catch (error) {
    await stop();
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
  return `policy engine ${version} started, role ${service.role}: ${serving}; ${storeText}; Redis ${redactUrl(config.REDIS_URL)}${redis}${ways}${from}. Stop with Ctrl-C.\n`;
}

/** How callers authenticate, so a gateway trusted by mistake is seen at once. */
function waysIn(config: Config): string {
  const provider = config.JWT_JWKS_URL === undefined ? [] : [`tokens of ${config.JWT_ISSUER} (keys at ${config.JWT_JWKS_URL})`];
  const tokens = [...(config.JWT_DEVELOPMENT_TOKENS ? ['development tokens'] : []), ...provider].join(' and ');
  const networks = config.TRUSTED_GATEWAY_CIDRS?.map((network) => `${network.address}/${network.prefix}`).join(', ');
  const gateway = networks === undefined ? '' : `, header-only requests from the trusted gateway at ${networks}${config.TRUSTED_GATEWAY_SECRET === undefined ? '' : ' with its secret'}`;
  return `accepts ${tokens}, signed requests${gateway}`;
}
