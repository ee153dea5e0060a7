/**
 * Offline verification of one tenant's audit chain against the configured store (MONGODB_URL,
 * else SQLite at DATA_DIR/policy-engine.db):
 *   npm run -s audit:verify -- --tenant acme [--page-size 1000] [--json]
 * Exit code 0: the chain is valid; 1: it is not (the first bad seq is printed); 2: it could not be
 * verified (bad arguments, configuration or store).
 */
import { existsSync } from 'node:fs';
import { Presets, SingleBar } from 'cli-progress';
import { verifyChain, type ChainVerification } from '../src/audit/index.js';
import { describeStore, storeLocation } from '../src/config/index.js';
import { isValidTenantId } from '../src/kernel/index.js';
import { openStore, type Store } from '../src/store/index.js';
import { CliError, createProgram, loadCliConfig, isEntryPoint, runAsEntryPoint, runProgram, type CliIo } from './cli-io.js';

export const EXIT_VALID = 0;
export const EXIT_INVALID = 1;
export const EXIT_UNVERIFIED = 2;

export interface AuditVerifyOptions {
  /** Where the progress bar is drawn; it only appears on a terminal. Default: stderr. */
  progressStream?: NodeJS.WritableStream;
}

interface CommandOptions {
  tenant: string;
  pageSize: string;
  json?: boolean;
}

async function openConfiguredStore(io: CliIo): Promise<{ store: Store; where: string }> {
  const config = loadCliConfig(io);
  const location = storeLocation(config);
  if (location.mongodbUrl === undefined && !existsSync(location.sqlitePath)) {
    // Opening would create an empty store and call its (absent) chain valid.
    throw new CliError(`no SQLite store at ${location.sqlitePath}: set DATA_DIR, or MONGODB_URL for MongoDB`);
  }
  const where = describeStore(location);
  try {
    return { store: await openStore(location), where };
  } catch (error) {
    throw new CliError(`cannot open the store at ${where}: ${(error as Error).message}`);
  }
}

function describe(tenant: string, result: ChainVerification): string {
  if (result.valid) {
    return result.headSeq === 0
      ? `tenant \`${tenant}\`: no audit records`
      : `tenant \`${tenant}\`: chain valid, ${result.checked} records, head seq ${result.headSeq}, head hash ${result.headHash}`;
  }
  return (
    `tenant \`${tenant}\`: chain INVALID at seq ${result.firstInvalidSeq}: ${result.reason} ` +
    `(${result.checked} records intact before it; head seq ${result.headSeq})`
  );
}

async function verifyCommand(options: CommandOptions, io: CliIo, extra: AuditVerifyOptions): Promise<number> {
  if (!isValidTenantId(options.tenant)) {
    throw new CliError('--tenant must be 1 to 64 letters, digits, `_` or `-`');
  }
  const pageSize = Number(options.pageSize);
  if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > 100_000) {
    throw new CliError('--page-size must be a whole number from 1 to 100000');
  }
  const { store, where } = await openConfiguredStore(io);
  const bar = new SingleBar(
    {
      stream: extra.progressStream ?? process.stderr,
      format: 'verifying {bar} {percentage}% | {value}/{total} records | {eta_formatted} left',
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  try {
    if (options.json !== true) io.out(`verifying the audit chain of tenant \`${options.tenant}\` in ${where}`);
    let started = false;
    const result = await verifyChain(store.audit, options.tenant, {
      pageSize,
      onProgress: ({ checked, total }) => {
        if (!started) {
          bar.start(total, 0);
          started = true;
        }
        bar.update(checked);
      },
    });
    if (started) bar.stop();
    io.out(options.json === true ? JSON.stringify({ tenantId: options.tenant, ...result }) : describe(options.tenant, result));
    return result.valid ? EXIT_VALID : EXIT_INVALID;
  } finally {
    bar.stop();
    await store.close();
  }
}

export async function runAuditVerifyCli(
  argv: readonly string[],
  io: CliIo,
  extra: AuditVerifyOptions = {},
): Promise<number> {
  let outcome: number | undefined;
  const program = createProgram('audit-verify', io)
    .description('verify the hash chain of one tenant\'s audit log in the configured store')
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--page-size <n>', 'records read per query', '1000')
    .option('--json', 'print the result as one JSON line')
    .action(async (options: CommandOptions) => {
      try {
        outcome = await verifyCommand(options, io, extra);
      } catch (error) {
        // Whatever stopped verification, it says nothing about the chain: never exit 1 for it.
        io.err(`error: ${(error as Error).message}`);
        outcome = EXIT_UNVERIFIED;
      }
    });
  const code = await runProgram(program, argv, io);
  if (outcome !== undefined) return outcome;
  // --help and --version end with 0; usage errors must not read as "invalid chain".
  return code === 0 ? EXIT_VALID : EXIT_UNVERIFIED;
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runAuditVerifyCli);
