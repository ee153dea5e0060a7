import { readFileSync } from 'node:fs';
import type { JsonValue } from '../language/api-types.js';
import { CliUsageError } from './cli-io.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function readBytes(path: string, what: string): Buffer {
  try {
    return path === '-' ? readFileSync(0) : readFileSync(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CliUsageError(`cannot read ${what} \`${path}\`: ${reason}`);
  }
}

/** Reads a policy source. Invalid UTF-8 is refused here: once decoded with replacement characters it would pass unnoticed. */
export function readSource(path: string): string {
  const bytes = readBytes(path, 'policy file');
  try {
    return utf8.decode(bytes);
  } catch {
    throw new CliUsageError(`policy file \`${path}\` is not valid UTF-8`);
  }
}

/** Reads the evaluation context: a JSON file, or standard input for `-`. */
export function readContext(path: string): JsonValue {
  const bytes = readBytes(path, 'context file');
  try {
    return JSON.parse(utf8.decode(bytes)) as JsonValue;
  } catch (error) {
    throw new CliUsageError(`context file \`${path}\` is not valid JSON: ${(error as Error).message}`);
  }
}
