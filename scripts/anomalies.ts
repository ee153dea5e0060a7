/**
 * Anomaly detection on demand, through the same `anomaly-detect` queue the schedule uses (a worker
 * process runs it; this script only enqueues and waits):
 *   npm run -s anomalies -- detect --tenant acme [--timeout 60] [--json]
 */
import { InvalidArgumentError } from 'commander';
import { createAnomalyJobQueues, DetectionTimeoutError, type DetectionRun } from '../src/anomalies/index.js';
import { describeRedis, redisConnection } from '../src/config/index.js';
import { isValidTenantId } from '../src/kernel/index.js';
import { CliError, createProgram, loadCliConfig, isEntryPoint, runAsEntryPoint, runProgram, type CliIo } from './cli-io.js';

function seconds(text: string): number {
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 1 && value <= 3600)) throw new InvalidArgumentError('must be a whole number of seconds between 1 and 3600');
  return value;
}

function tenant(text: string): string {
  if (!isValidTenantId(text)) throw new InvalidArgumentError('must be 1-64 letters, digits, _ or -');
  return text;
}

export async function runAnomaliesCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram('anomalies', io).description('run anomaly detection on demand (a worker process must be running)');

  program
    .command('detect')
    .description("detect anomalies in one tenant's recent evaluations now, and print what was found")
    .requiredOption('--tenant <tenantId>', 'tenant id', tenant)
    .option('--timeout <seconds>', 'how long to wait for a worker to finish the job', seconds, 60)
    .option('--json', 'print the job result as JSON')
    .action(async (options: { tenant: string; timeout: number; json?: boolean }) => {
      const config = loadCliConfig(io);
      const queues = createAnomalyJobQueues({ connection: redisConnection(config), prefix: config.REDIS_KEY_PREFIX });
      let run: DetectionRun;
      try {
        run = (await queues.runDetection(options.tenant, options.timeout * 1000)) as DetectionRun;
      } catch (error) {
        const message = (error as Error).message;
        if (error instanceof DetectionTimeoutError) {
          throw new CliError(`no worker finished the detection within ${options.timeout} s: is a worker (role worker or all) running on ${describeRedis(redisConnection(config))} with prefix \`${config.REDIS_KEY_PREFIX}\`?`);
        }
        throw new CliError(`detection failed: ${message}`);
      } finally {
        await queues.close();
      }
      if (options.json) {
        io.out(JSON.stringify(run));
        return;
      }
      for (const report of run.tenants) {
        io.out(
          `tenant \`${report.tenantId}\`: window ${report.windowStart} to ${report.windowEnd}, ${report.buckets} rollup buckets, ${report.assessed} of ${report.versions} versions assessed`,
        );
        io.out(`opened ${report.opened}, updated ${report.updated}, unchanged ${report.unchanged}, suppressed ${report.suppressed}, resolved ${report.resolved} (${Math.round(run.durationMs)} ms)`);
        const next = report.continueAfter;
        if (next !== null) io.out(`the next round goes on after ${next.policyModule}@${next.version} ${next.policyFunction}`);
      }
    });

  return runProgram(program, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runAnomaliesCli);
