/** Where the CLI writes. Tests pass their own to capture output; `main` defaults to the process streams. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export function processIo(): CliIo {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
  };
}

/**
 * Exit codes: 0 success, 1 the module or its evaluation reported errors, 2 bad usage or unreadable
 * input, 70 an internal defect (EX_SOFTWARE).
 */
export const EXIT_OK = 0;
export const EXIT_DIAGNOSTICS = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 70;

/** A problem with the command line or its files, reported as one line and exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}
