/**
 * Mints a development bearer token signed with the configured key (JWT_KEYS, else the key file
 * under DATA_DIR, created on first use):
 *   npm run -s token -- --tenant acme --role ADMIN [--sub alice] [--ttl 1h]
 * The token alone goes to stdout. It carries `iat` and `exp`; its lifetime may not exceed
 * JWT_MAX_LIFETIME_SECONDS (24 h by default), which the service enforces too.
 */
import { InvalidArgumentError } from 'commander';
import { isRole, ROLES, SERVICE_ACTOR_REFUSAL, type Role } from '../src/auth/index.js';
import { isValidTenantId, looksLikeServiceActor } from '../src/kernel/index.js';
import { CliError, createProgram, loadCliConfig, isEntryPoint, runAsEntryPoint, runProgram, type CliIo } from './cli-io.js';
import { mintDevelopmentToken } from './development-token.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const DEFAULT_TTL_SECONDS = 3600;

/** A duration in seconds; whether it is allowed depends on JWT_MAX_LIFETIME_SECONDS, checked later. */
export function parseTtl(text: string): number {
  const match = /^(\d{1,9})([smhd])$/.exec(text);
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : Number.NaN;
  if (!(seconds >= 1)) {
    throw new InvalidArgumentError('must be a duration such as 90s, 15m, 1h or 12h (at most JWT_MAX_LIFETIME_SECONDS, 24h by default)');
  }
  return seconds;
}

function formatSeconds(seconds: number): string {
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

function parseRoleOption(text: string): Role {
  const role = text.toUpperCase();
  if (!isRole(role)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return role;
}

function parseTenantOption(text: string): string {
  if (!isValidTenantId(text)) throw new InvalidArgumentError("must be 1-64 characters of letters, digits, '_' or '-'");
  return text;
}

export async function runTokenCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram('token', io)
    .description('mint a development bearer token')
    .requiredOption('--tenant <tenantId>', 'tenant the token is valid for', parseTenantOption)
    .requiredOption('--role <role>', `role granted: ${ROLES.join(', ')}`, parseRoleOption)
    .option('--sub <subject>', 'actor id recorded in audit records', 'dev')
    .option('--ttl <duration>', 'lifetime, e.g. 15m, 1h, 12h (default 1h; at most JWT_MAX_LIFETIME_SECONDS, 24h by default)', parseTtl)
    .action(async (options: { tenant: string; role: Role; sub: string; ttl?: number }) => {
      if (options.sub.length === 0 || options.sub.length > 256) throw new CliError('--sub must be 1-256 characters');
      if (looksLikeServiceActor(options.sub)) throw new CliError(`--sub ${SERVICE_ACTOR_REFUSAL}`);
      const config = loadCliConfig(io);
      const maxLifetime = config.JWT_MAX_LIFETIME_SECONDS;
      const ttl = options.ttl ?? Math.min(DEFAULT_TTL_SECONDS, maxLifetime);
      if (ttl > maxLifetime) {
        throw new CliError(
          `--ttl ${formatSeconds(ttl)} exceeds the longest token lifetime the service accepts, ` +
            `${formatSeconds(maxLifetime)} (JWT_MAX_LIFETIME_SECONDS=${maxLifetime}): ask for less`,
        );
      }
      const { token, ring } = await mintDevelopmentToken(config, { subject: options.sub, tenantId: options.tenant, role: options.role, ttlSeconds: ttl });
      io.out(token);
      // On stderr, so `$(npm run -s token …)` holds the token alone; a service with other keys refuses it.
      io.err(`signed with key \`${ring.signingKey.kid}\` of ${ring.source}: the service must run with the same ${ring.source === 'JWT_KEYS' ? 'JWT_KEYS' : 'DATA_DIR or JWT_KEYS'}`);
    });
  return runProgram(program, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runTokenCli);
