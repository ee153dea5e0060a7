import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { envSchema } from './env-schema.js';
import { ConfigError, settingOf } from './load-config.js';

/** Settings shared by the service and every script, read from the working directory. */
export const ENV_FILE_NAME = '.env';

export interface Environment {
  /** The variables the configuration is read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** The `.env` file that supplied some of them; null when there is none. */
  envFile: string | null;
  /** Names the file sets that are no setting of the service: misspelt ones, or another tool's. */
  unknownNames: string[];
}

/** One line per unknown name, for stderr: a misspelt security setting must not pass unseen. */
export function unknownNameWarnings(environment: Environment): string[] {
  return environment.unknownNames.map((name) => `${environment.envFile}: \`${name.slice(0, 64)}\` is not a setting of this service and is ignored (misspelt?)`);
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
    // Settings that turn security off or on must come from someone trusted: not from a file any user may write.
    if ((statSync(path).mode & 0o002) !== 0) {
      throw new ConfigError([`${path} is writable by every user of this machine, so it is not read: \`chmod o-w ${path}\``]);
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { env, envFile: null, unknownNames: [] };
    throw new ConfigError([`${path} cannot be read: ${(error as Error).message}`]);
  }
  // parseEnv keeps a byte order mark in the first name, which would drop the first setting unseen.
  const fromFile = parseEnv(text.replace(/^\uFEFF/, ''));
  const unknownNames = Object.keys(fromFile).filter((name) => !Object.hasOwn(envSchema.shape, name));
  return { env: { ...fromFile, ...definedOnly(env) }, envFile: path, unknownNames };
}

/** An empty value counts as unset everywhere (loadConfig), so it does not hide the file's value either. */
function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const name of Object.keys(env)) if (settingOf(env, name) !== undefined) defined[name] = env[name]!;
  return defined;
}
