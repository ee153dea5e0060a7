import type { CompileOutcome } from '../engine/index.js';
import { MAX_NAME_LENGTH } from '../kernel/index.js';
import { EvaluationTimedOut, type WorkflowSignature } from '../language/index.js';
import type { VersionResolver } from '../policies/index.js';
import { WorkflowError, WorkflowErrorCode } from './workflow-errors.js';

export interface WorkflowDefinitions {
  /** The workflows a module version declares (a version never changes, so this is cached). */
  of(tenantId: string, policyModule: string, version: number): Promise<readonly WorkflowSignature[]>;
  /** One workflow of a module version; 404 when the version declares none of that name. */
  find(tenantId: string, policyModule: string, version: number, workflow: string): Promise<WorkflowSignature>;
}

export interface WorkflowDefinitionsDeps {
  versions: Pick<VersionResolver, 'findVersion'>;
  /** Compiles in the engine's threads (the evaluation service's compile). */
  compile(tenantId: string, source: string, locale: string): Promise<CompileOutcome>;
  /** Module versions kept; default 256. */
  cacheSize?: number;
}

export function createWorkflowDefinitions(deps: WorkflowDefinitionsDeps): WorkflowDefinitions {
  const cacheSize = deps.cacheSize ?? 256;
  const cache = new Map<string, Promise<readonly WorkflowSignature[]>>();

  async function load(tenantId: string, policyModule: string, version: number): Promise<readonly WorkflowSignature[]> {
    const found = await deps.versions.findVersion(tenantId, policyModule, version);
    const { source, locale } = 'builtin' in found ? found.builtin.module : found.stored;
    const compiled = await deps.compile(tenantId, source, locale);
    if (!compiled.ok) {
      // The engine failing (a stopped thread, a compile past its time) may pass; a diagnostic of the source never does.
      const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length === 0 || errors.some((d) => d.code === EvaluationTimedOut.code)) {
        throw new WorkflowError(503, WorkflowErrorCode.DEFINITION_UNAVAILABLE, `version ${version} of \`${policyModule}\` could not be compiled now (${compiled.error}); retry later`);
      }
      throw new WorkflowError(422, WorkflowErrorCode.DEFINITION_UNAVAILABLE, `version ${version} of \`${policyModule}\` does not compile: ${compiled.error}`);
    }
    return compiled.module.workflows;
  }

  const of = (tenantId: string, policyModule: string, version: number): Promise<readonly WorkflowSignature[]> => {
    const key = `${tenantId}\u0000${policyModule}\u0000${version}`;
    let entry = cache.get(key);
    if (entry === undefined) {
      entry = load(tenantId, policyModule, version);
      // A failure (the engine away, say) is not remembered: the next call tries again.
      entry.catch(() => cache.delete(key));
      cache.set(key, entry);
      if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    }
    return entry;
  };

  return {
    of,
    async find(tenantId, policyModule, version, workflow) {
      const found = (await of(tenantId, policyModule, version)).find((w) => w.name === workflow);
      if (found === undefined) {
        throw new WorkflowError(404, WorkflowErrorCode.NOT_FOUND, `version ${version} of \`${policyModule}\` declares no workflow \`${workflow.slice(0, MAX_NAME_LENGTH)}\``);
      }
      return found;
    },
  };
}
