import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../audit/index.js';
import { engineFailure, type CompileOutcome } from '../../engine/index.js';
import { openSqliteStore, type Store } from '../../store/index.js';
import { createBuiltinVersions } from '../builtin-versions.js';
import { createPolicyCatalog } from '../policy-catalog.js';
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
    expect(await opened.policies.listVersions('acme')).toEqual([]);
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
