/**
 * The `policy` command: `check`, `eval`, `fmt` and `test` over policy source files, `deploy` to a service, and `lsp`, the language server for editors. `scripts/policy.mjs`
 * calls `main` with the arguments after the program name and exits with the returned code.
 */
import { Command, CommanderError } from 'commander';
// The file, not the API's index: the policy command loads no HTTP code.
import { serviceVersion } from '../api/service-version.js';
import { type CliIo, CliUsageError, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, processIo } from './cli-io.js';
import { runCheck } from './commands/check-command.js';
import { runDeploy, type DeployOptions } from './commands/deploy-command.js';
import { runEval } from './commands/eval-command.js';
import { runFmt } from './commands/fmt-command.js';
import { runTest } from './commands/test-command.js';

function createProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('policy')
    .description('Check, evaluate, format, translate and test policy modules written in en-US, zh-CN or de-DE.')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) })
    .showHelpAfterError('(run `policy --help` for usage)')
    .version(serviceVersion().version, '-V, --version', 'print the version of the policy language tools');

  program
    .command('check')
    .description('compile a module and report its diagnostics')
    .argument('<file>', 'policy source file')
    .option('--locale <tag>', 'locale the module is written in (default: detected from its module header)')
    .option('--json', 'print the check report as JSON whatever the diagnostics (src/cli/README.md has its fields)')
    .action((file: string, options: { locale?: string; json?: boolean }) => setExit(runCheck(file, options, io)));

  program
    .command('eval')
    .description('evaluate one rule of a module and print its result as JSON')
    .argument('<file>', 'policy source file')
    .requiredOption('--function <name>', 'rule to evaluate')
    .option('--context <file>', 'JSON context: an object keyed by parameter name or an array in parameter order (`-` reads standard input)')
    .option('--locale <tag>', 'locale the module is written in (default: detected from its module header)')
    .option('--trace', 'print the decision trace')
    .option('--json', 'print {"result", "error", "diagnostics"} as JSON whatever the outcome')
    .action((file: string, options: { function: string; context?: string; locale?: string; trace?: boolean; json?: boolean }) =>
      setExit(runEval(file, options, io)),
    );

  program
    .command('fmt')
    .description('print a module in canonical layout, optionally translated to another locale; or check or rewrite files')
    .argument('<files...>', 'policy source files (one, unless --check or --write)')
    .option('--from <tag>', 'locale the module is written in (default: detected from its module header)')
    .option('--locale <tag>', 'locale to print in (default: the module\'s own)')
    .option('--check', 'list the files not in canonical layout and exit 1 when any is; change nothing')
    .option('--write', 'rewrite the files not in canonical layout in place')
    .action((files: string[], options: { from?: string; locale?: string; check?: boolean; write?: boolean }) => setExit(runFmt(files, options, io)));

  program
    .command('test')
    .description('run the test cases of modules: every <module>.tests.json under the paths, against <module>.policy beside it')
    .argument('<paths...>', 'test files or directories to search')
    .action((paths: string[]) => setExit(runTest(paths, io)));

  program
    .command('deploy')
    .description('deploy modules to a running service, each with the <module>.tests.json beside it (the service stores a version only when its tests pass)')
    .argument('<paths...>', 'policy files or directories to search')
    .requiredOption('--url <url>', 'the service, e.g. http://localhost:8080')
    .option('--token <token>', 'a bearer token (the tenant it names, unless --tenant)')
    .option('--tenant <id>', 'the tenant to deploy for')
    .option('--secret <secret>', "the tenant's request-signing secret: sign instead of a token")
    .option('--role <role>', 'the role to act as (default ADMIN, which an active deploy or a canary needs; MEMBER for --shadow)')
    .option('--shadow', 'roll each version out in the shadow: it answers nobody; copies of the active version\'s evaluations are compared')
    .option('--canary', 'roll each version out as a canary: it answers --percent of the evaluations')
    .option('--percent <n>', 'the share of evaluations copied (shadow, default 100) or answered (canary, required), 1-100')
    .option('--sticky-key <path>', 'canary: the context path whose value picks the version (the same value, the same version)')
    .option('--capture-contexts', 'shadow: keep the contexts of sampled disagreements')
    .action(async (paths: string[], options: DeployOptions) => setExit(await runDeploy(paths, options, io)));

  program
    .command('lsp')
    .description('run the language server for editors (diagnostics, hover, completion, definitions, symbols, formatting) on standard input and output')
    .option('--stdio', 'talk LSP on standard input and output (the only transport; accepted for editors that pass it)')
    // Loaded only here: the server's thread pool and LSP library stay out of the other commands.
    .action(async () => setExit(await (await import('./commands/lsp-command.js')).runLsp()));

  return program;
}

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = EXIT_OK;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  if (argv.length === 0) {
    io.err(program.helpInformation());
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    if (error instanceof CliUsageError) {
      io.err(`error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    // The language API reports problems as diagnostics; reaching here is a defect, shown without a stack.
    io.err(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INTERNAL;
  }
}
