/**
 * The service's entry point: reads the arguments and the environment, picks the role — `api`,
 * `worker`, or `all` (both, the default of `npm start`) — starts its parts (src/service/) and stops
 * them on SIGINT/SIGTERM. What each role runs is composed in src/service/, part by part.
 */
import { constants } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, PROCESS_ROLES, settingOf, unknownNameWarnings, withEnvFile, type Config, type ProcessRole } from './config/index.js';
import { createLogger } from './logging/index.js';
import { privateRedisIfNoneAnswers, startService, StartupError, startupLine, type PrivateRedis, type Service } from './service/index.js';

function parseRole(value: string): ProcessRole {
  if (!(PROCESS_ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${PROCESS_ROLES.join(', ')}`);
  }
  return value as ProcessRole;
}

/** Runs the process until SIGINT/SIGTERM. Returns the exit code for start-up failures. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = new Command('policy-engine')
    .description('multi-tenant policy engine service')
    .option('--role <role>', `process role: ${PROCESS_ROLES.join(', ')} (default: ROLE or all)`, parseRole)
    .exitOverride();
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode ?? 1;
  }
  let config: Config;
  let envFile: string | null;
  let env: NodeJS.ProcessEnv;
  try {
    const environment = withEnvFile(process.env);
    envFile = environment.envFile;
    env = environment.env;
    for (const warning of unknownNameWarnings(environment)) process.stderr.write(`${warning}\n`);
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  const role = (program.opts<{ role?: ProcessRole }>().role ?? config.ROLE) as ProcessRole;
  const logger = createLogger({ level: config.LOG_LEVEL, base: { role }, format: config.LOG_FORMAT });

  let privateRedis: PrivateRedis | null = null;
  let service: Service;
  // Until the service is up, a signal ends the process at once as it would unhandled, but through
  // process.exit: a process a signal ends emits no `exit`, and a private Redis stops on `exit`.
  const exitAtOnce = (signal: NodeJS.Signals) => process.exit(128 + constants.signals[signal]);
  try {
    // Only a process that is the whole service may bring its own Redis: an api and a worker
    // started apart would each get one and never meet. A configured REDIS_URL or cluster is never replaced.
    if (role === 'all' && settingOf(env, 'REDIS_URL') === undefined && config.REDIS_CLUSTER_NODES === undefined) {
      process.once('SIGINT', exitAtOnce).once('SIGTERM', exitAtOnce);
      privateRedis = await privateRedisIfNoneAnswers(config.REDIS_URL, join(config.DATA_DIR, 'redis'));
      if (privateRedis !== null) config = loadConfig({ ...env, REDIS_URL: privateRedis.url });
    }
    service = await startService(role, config, logger);
  } catch (error) {
    process.removeListener('SIGINT', exitAtOnce).removeListener('SIGTERM', exitAtOnce);
    await privateRedis?.stop();
    if (error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  process.removeListener('SIGINT', exitAtOnce).removeListener('SIGTERM', exitAtOnce);
  logger.info({ store: service.runtime.store.kind, privateRedis: privateRedis?.dir }, 'service started');
  process.stderr.write(startupLine(service, { envFile, privateRedisDir: privateRedis?.dir ?? null }));

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service
      .stop()
      .then(() => privateRedis?.stop())
      .then(
        () => {
          logger.info('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          // The exit stops a private Redis too.
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`start-up failed: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
