import { envSchema, type Config } from './env-schema.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** Validates the environment; throws ConfigError naming each bad variable and why. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const present: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    // `FOO=` in compose files and shells means "not set", not "set to nothing".
    if (value !== undefined && value.trim() !== '') present[key] = value.trim();
  }
  const parsed = envSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'environment');
    const shown = name === 'JWT_KEYS' || present[name] === undefined ? '' : ` (got "${present[name]}")`;
    return `${name} ${issue.message}${shown}`;
  });
  throw new ConfigError(problems);
}
