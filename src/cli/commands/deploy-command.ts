import { existsSync } from 'node:fs';
import { isRole } from '../../auth/roles.js';
// The file, not the auth index: the policy command loads no HTTP middleware.
import { signRequest } from '../../auth/request-signature.js';
import { isValidTenantId } from '../../kernel/index.js';
import { sourceLocale } from '../../language/index.js';
import { type CliIo, CliUsageError, EXIT_DIAGNOSTICS, EXIT_OK } from '../cli-io.js';
import { besideFile, filesUnder, POLICY_SUFFIX, TEST_FILE_SUFFIX } from '../module-files.js';
import { readSource } from '../read-input.js';

const DEPLOY_PATH = '/api/v1/policies';
/** A deploy compiles and runs its tests on a worker: give it longer than an evaluation. */
const REQUEST_TIMEOUT_MS = 60_000;

export interface DeployOptions {
  url: string;
  token?: string;
  tenant?: string;
  secret?: string;
  role?: string;
  shadow?: boolean;
  canary?: boolean;
  percent?: string;
  stickyKey?: string;
  captureContexts?: boolean;
}

type RolloutRequest = { mode: 'shadow'; percent?: number; captureContexts?: boolean } | { mode: 'canary'; percent: number; stickyKey?: string };

/** The rollout the flags ask for; undefined for an active deploy. The service checks the rest. */
function rolloutOf(options: DeployOptions): RolloutRequest | undefined {
  if (options.shadow && options.canary) throw new CliUsageError('give --shadow or --canary, not both');
  const percent = options.percent === undefined ? undefined : Number(options.percent);
  if (percent !== undefined && !(Number.isInteger(percent) && percent >= 1 && percent <= 100)) {
    throw new CliUsageError(`--percent must be a whole number from 1 to 100 (got \`${options.percent}\`)`);
  }
  if (options.canary) {
    if (percent === undefined) throw new CliUsageError('--canary needs --percent: the share of evaluations the new version answers');
    if (options.captureContexts) throw new CliUsageError('--capture-contexts goes with --shadow');
    return { mode: 'canary', percent, ...(options.stickyKey !== undefined ? { stickyKey: options.stickyKey } : {}) };
  }
  if (options.shadow) {
    if (options.stickyKey !== undefined) throw new CliUsageError('--sticky-key goes with --canary');
    return { mode: 'shadow', ...(percent !== undefined ? { percent } : {}), ...(options.captureContexts ? { captureContexts: true } : {}) };
  }
  const stray = percent !== undefined ? '--percent' : options.stickyKey !== undefined ? '--sticky-key' : options.captureContexts ? '--capture-contexts' : undefined;
  if (stray !== undefined) throw new CliUsageError(`${stray} goes with --shadow or --canary`);
  return undefined;
}

/** The tenant a development token names, for `--token` without `--tenant`. */
function tenantOfToken(token: string): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { tenant?: unknown };
    return typeof claims.tenant === 'string' ? claims.tenant : undefined;
  } catch {
    return undefined;
  }
}

interface Caller {
  tenantId: string;
  headers(body: string): Record<string, string>;
}

/** The role claimed unless `--role` says otherwise: the least a deploy of that kind needs (a shadow changes no answer). */
function defaultRole(rollout: RolloutRequest | undefined): string {
  return rollout?.mode === 'shadow' ? 'MEMBER' : 'ADMIN';
}

function callerOf(options: DeployOptions, rollout: RolloutRequest | undefined): Caller {
  const role = options.role ?? defaultRole(rollout);
  if (!isRole(role)) throw new CliUsageError(`--role must be one of VIEWER, MEMBER, ADMIN, OWNER`);
  if (options.token !== undefined) {
    if (options.secret !== undefined) throw new CliUsageError('give --token or --secret, not both');
    const tenantId = options.tenant ?? tenantOfToken(options.token);
    if (tenantId === undefined) throw new CliUsageError('name the tenant with --tenant: the token does not say');
    if (!isValidTenantId(tenantId)) throw new CliUsageError(`tenant \`${tenantId.slice(0, 64)}\` is not a tenant id`);
    return { tenantId, headers: () => ({ authorization: `Bearer ${options.token}`, 'x-tenant-id': tenantId, 'x-user-role': role }) };
  }
  if (options.tenant === undefined || options.secret === undefined) {
    throw new CliUsageError('authenticate with --token <token>, or with --tenant <id> and --secret <signing secret>');
  }
  const tenantId = options.tenant;
  if (!isValidTenantId(tenantId)) throw new CliUsageError(`tenant \`${tenantId.slice(0, 64)}\` is not a tenant id`);
  const secret = options.secret;
  return { tenantId, headers: (body) => ({ ...signRequest({ method: 'POST', pathWithQuery: DEPLOY_PATH, body, tenantId, role, secret }) }) };
}

function endpointOf(url: string): URL {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new CliUsageError(`--url \`${url}\` is not a URL (e.g. http://localhost:8080)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new CliUsageError('--url must be an http:// or https:// URL');
  return new URL(DEPLOY_PATH, base);
}

/** The tests file beside a policy file, parsed; undefined when there is none. */
function testsBeside(policyFile: string): { path: string; tests: unknown } | undefined {
  const path = besideFile(policyFile, POLICY_SUFFIX, TEST_FILE_SUFFIX);
  if (!existsSync(path)) return undefined;
  try {
    return { path, tests: JSON.parse(readSource(path)) as unknown };
  } catch (error) {
    throw new CliUsageError(`${path} is not JSON: ${(error as Error).message}`);
  }
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function post(endpoint: URL, caller: Caller, body: string): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...caller.headers(body) },
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliUsageError(`no answer from ${endpoint.origin}: ${(error as Error).message}`);
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: { error: text.slice(0, 300) } };
  }
}

/** What a refusal says, its details under it: the failing cases, or the compiler's diagnostics. */
function describeRefusal(file: string, answer: Answer): string {
  const lines = [`REFUSED ${file}: ${answer.status} ${String(answer.body.code ?? '')} ${String(answer.body.error ?? '')}`.trimEnd()];
  for (const failure of (answer.body.failures as Array<{ name: string; reason: string }> | undefined) ?? []) {
    lines.push(`  FAIL ${failure.name}: ${failure.reason}`);
  }
  for (const d of (answer.body.diagnostics as Array<{ code: string; message: string; span?: { line: number; column: number } | null }> | undefined) ?? []) {
    lines.push(`  ${d.span ? `${file}:${d.span.line}:${d.span.column}: ` : ''}${d.code} ${d.message}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `policy deploy <paths…> --url …`: deploys every `<module>.policy` named or found under the
 * paths, each with the `<module>.tests.json` beside it (the service runs the cases and stores
 * the version only when all pass), active or rolled out (`--shadow`, `--canary`). Prints one line
 * per module; exit 0 when every module was deployed, 1 when any was refused.
 */
export async function runDeploy(paths: readonly string[], options: DeployOptions, io: CliIo): Promise<number> {
  const endpoint = endpointOf(options.url);
  const rollout = rolloutOf(options);
  const caller = callerOf(options, rollout);
  const files = filesUnder(paths, POLICY_SUFFIX, 'policy file');
  if (files.length === 0) throw new CliUsageError(`no policy files (\`<module>${POLICY_SUFFIX}\`) under ${paths.join(', ')}`);
  let refused = 0;
  for (const file of files) {
    const source = readSource(file);
    const beside = testsBeside(file);
    const body = JSON.stringify({ source, locale: sourceLocale(source, undefined), ...(beside ? { tests: beside.tests } : {}), ...(rollout ? { rollout } : {}) });
    const answer = await post(endpoint, caller, body);
    if (answer.status === 201) {
      const cases = beside ? ` after its ${(beside.tests as { cases: unknown[] }).cases.length} test cases passed` : ', no tests beside it';
      const started = answer.body.rollout as { mode: string; percent: number; stableVersion: number } | null | undefined;
      const how = started ? ` in a ${started.mode} rollout at ${started.percent} % beside version ${started.stableVersion}` : '';
      io.out(`deployed ${file}: ${String(answer.body.versionId)}${how} for tenant ${caller.tenantId}${cases}\n`);
      continue;
    }
    refused++;
    io.err(describeRefusal(file, answer));
  }
  io.out(`${refused === 0 ? 'DEPLOYED' : 'REFUSED'}: ${files.length - refused} of ${files.length} modules deployed\n`);
  return refused === 0 ? EXIT_OK : EXIT_DIAGNOSTICS;
}
