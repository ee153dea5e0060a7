import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../audit/index.js';
import { engineFailure, type CompileOutcome } from '../../engine/index.js';
import { openSqliteStore, type Store } from '../../store/index.js';
import type { BuiltinModule } from '../builtin-library.js';
import { createBuiltinVersions } from '../builtin-versions.js';
import { MAX_RULES_PER_MODULE, MAX_VERSIONS_PER_TENANT } from '../policy-bounds.js';
import { createPolicyCatalog, type PolicyCatalog } from '../policy-catalog.js';
import { createVersionResolver } from '../version-resolver.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

// The compile step is the edge of the catalog: a stand-in answers what the engine would.
async function catalogCompiling(outcome: CompileOutcome) {
  store = await openSqliteStore(':memory:');
  const audited: AuditEvent[] = [];
  const builtins = createBuiltinVersions([]);
  const catalog = createPolicyCatalog({
    policies: store.policies,
    audit: { append: async (_tenant: string, event: AuditEvent) => (audited.push(event), {} as never) },
    compile: async () => outcome,
    builtins,
    versions: createVersionResolver({ policies: store.policies, builtins }),
  });
  return { catalog, audited, store };
}

describe('policy catalog deploy', () => {
  it('stores and audits a version the engine compiled', async () => {
    const { catalog, audited } = await catalogCompiling({
      kind: 'compiled',
      ok: true,
      module: { moduleName: 'acme.pricing', locale: 'en-US', functions: [{ name: 'price', params: [{ name: 'x', type: 'Int' }], returnType: 'Int' }], workflows: [] },
      diagnostics: [],
      executionTimeMs: 1,
    });
    const deployed = await catalog.deploy('acme', { source: 'Module acme.pricing.', locale: 'en-US' }, 'alice');
    expect(deployed.module).toMatchObject({ policyModule: 'acme.pricing', version: 1, status: 'ACTIVE' });
    expect(audited.map((event) => event.eventType)).toEqual(['POLICY_DEPLOYED']);
  });

  it('answers a source with errors as 400 with its diagnostics, storing nothing', async () => {
    const diagnostic = { code: 'PL1007' as const, severity: 'error' as const, message: 'missing `.`', span: null };
    const { catalog, store: opened } = await catalogCompiling({ kind: 'compiled', ok: false, code: 'PL1007', error: 'PL1007 missing `.`', diagnostics: [diagnostic], executionTimeMs: 1 });
    await expect(catalog.deploy('acme', { source: 'Module acme', locale: 'en-US' }, 'alice')).rejects.toMatchObject({
      status: 400,
      code: 'ERR_POLICY_COMPILE',
      diagnostics: [diagnostic],
    });
    expect(await opened.policies.countVersions('acme')).toBe(0);
  });

  it('answers an engine failure as 503 (retry) or an internal error, never as a bad source', async () => {
    const stopped = await catalogCompiling(engineFailure('compiled', 'ERR_EVALUATION_THREAD_STOPPED', 'evaluation thread stopped unexpectedly'));
    await expect(stopped.catalog.deploy('acme', { source: 'Module acme.', locale: 'en-US' }, 'alice')).rejects.toMatchObject({
      status: 503,
      code: 'ERR_EVALUATION_THREAD_STOPPED',
    });
    await store!.close();
    const internal = await catalogCompiling(engineFailure('compiled', 'ERR_EVALUATION_INTERNAL', 'internal error while evaluating the policy'));
    const failure = await internal.catalog.deploy('acme', { source: 'Module acme.', locale: 'en-US' }, 'alice').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { status?: number }).status).toBeUndefined();
  });
});

/** A compiled module with these rules: the engine's answer the catalog stores. */
function compiledModule(moduleName: string, rules: readonly string[]): CompileOutcome {
  return {
    kind: 'compiled',
    ok: true,
    module: { moduleName, locale: 'en-US', functions: rules.map((name) => ({ name, params: [], returnType: 'Int' })), workflows: [] },
    diagnostics: [],
    executionTimeMs: 1,
  };
}

/** A catalog over a fresh store whose engine stand-in compiles `{"module", "rules"}` sources, with one built-in module. */
async function catalogWithBuiltin() {
  store = await openSqliteStore(':memory:');
  const builtin: BuiltinModule = {
    moduleName: 'b.builtin',
    locale: 'en-US',
    source: 'Module b.builtin.',
    program: {} as never,
    functions: [{ name: 'one', params: [], returnType: 'Int' }, { name: 'two', params: [], returnType: 'Int' }],
    file: fileURLToPath(import.meta.url),
  };
  const builtins = createBuiltinVersions([builtin]);
  const catalog = createPolicyCatalog({
    policies: store.policies,
    audit: { append: async () => ({}) as never },
    compile: async (_tenant, source) => {
      const { module, rules } = JSON.parse(source) as { module: string; rules: string[] };
      return compiledModule(module, rules);
    },
    builtins,
    versions: createVersionResolver({ policies: store.policies, builtins }),
  });
  const deploy = (tenant: string, module: string, ...rules: string[]) =>
    catalog.deploy(tenant, { source: JSON.stringify({ module, rules }), locale: 'en-US' }, 'alice');
  return { catalog, deploy, store };
}

const listed = async (catalog: PolicyCatalog, tenant: string, request: Parameters<PolicyCatalog['listPolicies']>[1]) => {
  const { items, total } = await catalog.listPolicies(tenant, request);
  return { ids: items.map((item) => `${item.id} ${item.status}`), total };
};

describe('policy catalog list', () => {
  it('pages the built-in policies first, then the tenant\'s by module, version and rule, never with a source', async () => {
    const { catalog, deploy } = await catalogWithBuiltin();
    await deploy('acme', 'c.mod', 'm');
    await deploy('acme', 'a.mod', 'k', 'l');
    await deploy('acme', 'b.builtin', 'x');
    await deploy('acme', 'a.mod', 'k2');
    const all = [
      'b.builtin.one@0 SUPERSEDED', 'b.builtin.two@0 SUPERSEDED',
      'a.mod.k@1 SUPERSEDED', 'a.mod.l@1 SUPERSEDED', 'a.mod.k2@2 ACTIVE',
      'b.builtin.x@1 ACTIVE', 'c.mod.m@1 ACTIVE',
    ];
    expect(await listed(catalog, 'acme', { page: 0, size: 100 })).toEqual({ ids: all, total: 7 });
    for (const size of [1, 2, 3, 7]) {
      for (let page = 0; page * size <= all.length; page += 1) {
        expect(await listed(catalog, 'acme', { page, size }), `page ${page} of ${size}`).toEqual({ ids: all.slice(page * size, (page + 1) * size), total: 7 });
      }
    }
    const { items } = await catalog.listPolicies('acme', { page: 0, size: 100 });
    expect(items.every((item) => !('source' in item))).toBe(true);
    expect(items[2]).toMatchObject({ policyModule: 'a.mod', policyFunction: 'k', version: 1, versionId: 'a.mod@1', builtin: false, tenantId: 'acme', locale: 'en-US' });
    expect((await catalog.getPolicy('acme', 'a.mod.k2@2'))?.source).toBe(JSON.stringify({ module: 'a.mod', rules: ['k2'] }));
    expect((await catalog.getPolicy('acme', 'b.builtin.one@0'))?.source).toBe('Module b.builtin.');
  });

  it('filters by status and module before paging, and counts what the filter keeps', async () => {
    const { catalog, deploy } = await catalogWithBuiltin();
    await deploy('acme', 'a.mod', 'k', 'l');
    await deploy('acme', 'b.builtin', 'x');
    await deploy('acme', 'a.mod', 'k2');
    expect(await listed(catalog, 'acme', { status: 'ACTIVE', page: 0, size: 100 })).toEqual({ ids: ['a.mod.k2@2 ACTIVE', 'b.builtin.x@1 ACTIVE'], total: 2 });
    expect(await listed(catalog, 'acme', { status: 'SUPERSEDED', page: 1, size: 2 })).toEqual({ ids: ['a.mod.k@1 SUPERSEDED', 'a.mod.l@1 SUPERSEDED'], total: 4 });
    expect(await listed(catalog, 'acme', { status: 'RETIRED', page: 0, size: 100 })).toEqual({ ids: [], total: 0 });
    expect(await listed(catalog, 'acme', { policyModule: 'b.builtin', page: 0, size: 100 })).toEqual({
      ids: ['b.builtin.one@0 SUPERSEDED', 'b.builtin.two@0 SUPERSEDED', 'b.builtin.x@1 ACTIVE'],
      total: 3,
    });
    // Another tenant sees the built-in module, active for it.
    expect(await listed(catalog, 'globex', { status: 'ACTIVE', page: 0, size: 100 })).toEqual({ ids: ['b.builtin.one@0 ACTIVE', 'b.builtin.two@0 ACTIVE'], total: 2 });
  });
});

describe('policy catalog bounds', () => {
  it(`refuses a module of more than ${MAX_RULES_PER_MODULE} rules with 400, storing nothing`, async () => {
    const { catalog, deploy, store: opened } = await catalogWithBuiltin();
    const rules = (n: number) => Array.from({ length: n }, (_, i) => `r${i}`);
    await expect(deploy('acme', 'big.mod', ...rules(MAX_RULES_PER_MODULE + 1))).rejects.toMatchObject({
      status: 400,
      code: 'ERR_POLICY_TOO_MANY_RULES',
      message: `module \`big.mod\` defines ${MAX_RULES_PER_MODULE + 1} rules; a deployed module may define at most ${MAX_RULES_PER_MODULE}`,
    });
    expect(await opened.policies.countVersions('acme')).toBe(0);
    await deploy('acme', 'big.mod', ...rules(MAX_RULES_PER_MODULE));
    expect((await catalog.listPolicies('acme', { policyModule: 'big.mod', page: 0, size: 1 })).total).toBe(MAX_RULES_PER_MODULE);
  });

  it(`refuses a tenant's deploy past ${MAX_VERSIONS_PER_TENANT} stored versions with 409; other tenants deploy on`, async () => {
    const { deploy, store: opened } = await catalogWithBuiltin();
    for (let v = 1; v < MAX_VERSIONS_PER_TENANT; v += 1) {
      const version = { policyModule: 'm.x', version: v, source: 's', locale: 'en-US', sourceHash: 'h', functions: [], actorId: 'a', createdAt: '2026-01-01T00:00:00.000Z' };
      expect(await opened.policies.insertVersion('acme', version)).toBe(true);
    }
    await deploy('acme', 'other.mod', 'r');
    await expect(deploy('acme', 'other.mod', 'r')).rejects.toMatchObject({ status: 409, code: 'ERR_POLICY_VERSION_QUOTA_EXCEEDED' });
    expect(await opened.policies.countVersions('acme')).toBe(MAX_VERSIONS_PER_TENANT);
    await deploy('globex', 'other.mod', 'r');
  });
});
