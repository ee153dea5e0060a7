// The evaluation path as the service composes it (src/service/evaluation-path.ts): version
// resolver, evaluation service, catalog, audit writer, on a given store and dispatcher.
import { createAuditChainWriter, type AuditChainWriter } from '../../src/audit/index.js';
import { createEvaluationService, type EvaluationDispatcher, type EvaluationLimits, type EvaluationService } from '../../src/evaluation/index.js';
import {
  createBuiltinVersions,
  createPolicyCatalog,
  createVersionResolver,
  loadBuiltinLibrary,
  type BuiltinModule,
  type PolicyCatalog,
  type VersionResolver,
} from '../../src/policies/index.js';
import type { Store } from '../../src/store/index.js';

export interface EvaluationStack {
  auditWriter: AuditChainWriter;
  versions: VersionResolver;
  evaluation: EvaluationService;
  catalog: PolicyCatalog;
  /** Stores pending rollups and audit records. */
  flush(): Promise<void>;
}

export async function buildEvaluationStack(options: {
  store: Store;
  dispatcher: Pick<EvaluationDispatcher, 'dispatch'>;
  builtins?: readonly BuiltinModule[];
  limits?: Partial<EvaluationLimits>;
  /** The clock of rollups, activations and audit records; default the system clock. */
  now?: () => Date;
}): Promise<EvaluationStack> {
  const { store, dispatcher } = options;
  const clock = options.now ? { now: options.now } : {};
  const auditWriter = createAuditChainWriter(store.audit, clock);
  const builtins = createBuiltinVersions(options.builtins ?? (await loadBuiltinLibrary()));
  const versions = createVersionResolver({ policies: store.policies, builtins });
  const evaluation = createEvaluationService({
    dispatcher,
    audit: auditWriter,
    rollups: store.rollups,
    policies: versions,
    ...(options.limits ? { limits: options.limits } : {}),
    ...clock,
  });
  const catalog = createPolicyCatalog({ policies: store.policies, audit: auditWriter, compile: evaluation.compile, format: evaluation.format, builtins, versions, ...clock });
  return {
    auditWriter,
    versions,
    evaluation,
    catalog,
    async flush() {
      await evaluation.flush();
      await auditWriter.flush();
    },
  };
}
