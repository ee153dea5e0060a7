import { envSchema, type Config } from './env-schema.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** Settings whose values are never repeated in a message. */
const SECRET_SETTINGS = new Set(['JWT_KEYS', 'TRUSTED_GATEWAY_SECRET']);

/** A variable's value, trimmed; undefined when it is not set. */
export function settingOf(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  // `FOO=` in compose files and shells means "not set", not "set to nothing".
  return value === undefined || value === '' ? undefined : value;
}

/** Validates the environment; throws ConfigError naming each bad variable and why. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const present: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = settingOf(env, key);
    if (value !== undefined) present[key] = value;
  }
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    const shown = SECRET_SETTINGS.has(name) || present[name] === undefined ? '' : ` (got "${present[name]}")`;
    return `${name} ${issue.message}${shown}`;
  });
  throw new ConfigError(problems);
}
