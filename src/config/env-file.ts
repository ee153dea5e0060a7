import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './load-config.js';

/** Settings shared by the service and every script, read from the working directory. */
export const ENV_FILE_NAME = '.env';

export interface Environment {
  /** The variables the configuration is read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** The `.env` file that supplied some of them; null when there is none. */
  envFile: string | null;
}

/**
 * The process environment over the `.env` file of the working directory (dotenv's format): a
 * variable set in the environment wins over the file's, so one run can still change one setting.
 * A missing file is no error; an unreadable one is, as any bad setting is.
 */
export function withEnvFile(env: Readonly<Record<string, string | undefined>>, directory: string = process.cwd()): Environment {
  const path = resolve(directory, ENV_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { env, envFile: null };
    throw new ConfigError([`${path} cannot be read: ${(error as Error).message}`]);
  }
  return { env: { ...parseEnv(text), ...definedOnly(env) }, envFile: path };
}

/** An empty value counts as unset everywhere (loadConfig), so it does not hide the file's value either. */
function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value.trim() !== '') defined[name] = value;
  return defined;
}
