/**
 * Tenant set-up against the configured store (MONGODB_URL, else SQLite under DATA_DIR):
 *   npm run -s tenant -- create acme [--if-missing]    registers the tenant; its signing secret is the last line
 *   npm run -s tenant -- show acme      prints the newest signing secret on the last line
 *   npm run -s tenant -- rotate acme    adds a new secret; the previous one stays valid until the next rotation
 */
import { createTenantService, TenantExistsError, type TenantService } from '../src/tenants/index.js';
import { createProgram, isEntryPoint, runAsEntryPoint, runProgram, type CliIo } from './cli-io.js';
import { withStore } from './store-access.js';

function withTenants<T>(io: CliIo, work: (tenants: TenantService) => Promise<T>): Promise<T> {
  // The store is named on stderr: the secret stays the last line of stdout.
  return withStore(io, (store) => work(createTenantService(store.tenants)));
}

export async function runTenantCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram('tenant', io).description('register tenants and rotate their request-signing secrets');

  program
    .command('create')
    .description('register a tenant and print its request-signing secret on the last line')
    .argument('<tenantId>', 'tenant id: 1-64 letters, digits, _ or -')
    .option('--if-missing', 'when the tenant exists, print its newest secret instead of failing (for set-up scripts run again)')
    .action(async (tenantId: string, options: { ifMissing?: boolean }) => {
      await withTenants(io, async (tenants) => {
        try {
          const { secret } = await tenants.register(tenantId);
          io.out(`tenant \`${tenantId}\` created; request-signing secret version ${secret.version}:`);
          io.out(secret.secret);
        } catch (error) {
          if (!(options.ifMissing && error instanceof TenantExistsError)) throw error;
          const secret = await tenants.currentSecret(tenantId);
          io.out(`tenant \`${tenantId}\` already exists; its newest request-signing secret, version ${secret.version}:`);
          io.out(secret.secret);
        }
      });
    });

  program
    .command('show')
    .description('print the newest request-signing secret of a tenant on the last line')
    .argument('<tenantId>', 'an existing tenant id')
    .action(async (tenantId: string) => {
      const secret = await withTenants(io, (tenants) => tenants.currentSecret(tenantId));
      io.out(`tenant \`${tenantId}\`: newest request-signing secret, version ${secret.version}:`);
      io.out(secret.secret);
    });

  program
    .command('rotate')
    .description('add a new request-signing secret; the previous one stays valid until the next rotation')
    .argument('<tenantId>', 'an existing tenant id')
    .action(async (tenantId: string) => {
      const secret = await withTenants(io, (tenants) => tenants.rotateSecret(tenantId));
      io.out(
        `tenant \`${tenantId}\`: request-signing secret version ${secret.version} added; version ${secret.version - 1} stays valid until the next rotation:`,
      );
      io.out(secret.secret);
    });

  return runProgram(program, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runTenantCli);
