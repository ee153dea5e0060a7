import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, unknownNameWarnings, withEnvFile, type Config } from '../src/config/index.js';

/** Where a script reads its environment and writes its lines; tests pass their own. */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out(line: string): void;
  err(line: string): void;
}

let processEnvironment: Readonly<Record<string, string | undefined>> | undefined;

export const processIo: CliIo = {
  /** The environment over `.env` of the working directory, read when a script first needs it. */
  get env() {
    if (processEnvironment === undefined) {
      const environment = withEnvFile(process.env);
      for (const warning of unknownNameWarnings(environment)) process.stderr.write(`${warning}\n`);
      processEnvironment = environment.env;
    }
    return processEnvironment;
  },
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** A failure the user can fix: one line on stderr, exit code 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** A commander program that reports through `io` and never exits the process itself. */
export function createProgram(name: string, io: CliIo): Command {
  return new Command(name)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.trimEnd()),
      writeErr: (text) => io.err(text.trimEnd()),
    });
}

/** Parses and runs; maps the expected failures to exit codes. */
export async function runProgram(program: Command, argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || (error as { expose?: unknown }).expose === true) {
      io.err(`error: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

/** The service's configuration from the script's environment; an invalid one is a CliError naming it. */
export function loadCliConfig(io: CliIo): Config {
  try {
    return loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
}

/** True when the module at `url` is the file node was started with. */
export function isEntryPoint(url: string): boolean {
  return process.argv[1] !== undefined && url === pathToFileURL(process.argv[1]).href;
}

export function runAsEntryPoint(run: (argv: readonly string[], io: CliIo) => Promise<number>): void {
  run(process.argv.slice(2), processIo).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
