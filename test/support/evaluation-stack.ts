// The evaluation path as the service composes it (src/service/evaluation-path.ts): version
// resolver, evaluation service, catalog, rollouts, audit trail, on a given store and dispatcher.
import { createAuditTrail, type AuditTrail } from '../../src/audit/index.js';
import { createEvaluationService, type EvaluationDispatcher, type EvaluationLimits, type EvaluationService } from '../../src/evaluation/index.js';
import {
  createBuiltinVersions,
  createPolicyCatalog,
  createRolloutControl,
  createVersionResolver,
  loadBuiltinLibrary,
  type BuiltinModule,
  type PolicyCatalog,
  type RolloutControl,
  type SharedRolloutTally,
  type VersionResolver,
} from '../../src/policies/index.js';
import type { Store } from '../../src/store/index.js';

const NOTHING_ROUTED = { count: 0, failures: 0, timeSum: 0, timeSquares: 0 };

export interface EvaluationStack {
  /** Records what the evaluation service and the catalog append, and links them into the chain. */
  auditTrail: AuditTrail;
  versions: VersionResolver;
  evaluation: EvaluationService;
  catalog: PolicyCatalog;
  rollouts: RolloutControl;
  /** Stores pending rollups, and audit records linked into their chains. */
  flush(): Promise<void>;
}

export async function buildEvaluationStack(options: {
  store: Store;
  dispatcher: Pick<EvaluationDispatcher, 'dispatch'>;
  builtins?: readonly BuiltinModule[];
  limits?: Partial<EvaluationLimits>;
  /** The clock of rollups, activations and audit records; default the system clock. */
  now?: () => Date;
  /** Where shadow copies run and are counted; without it, shadow rollouts make no copies. */
  shadow?: { dispatcher: Pick<EvaluationDispatcher, 'dispatch'>; tally: SharedRolloutTally };
}): Promise<EvaluationStack> {
  const { store, dispatcher } = options;
  const clock = options.now ? { now: options.now } : {};
  const auditTrail = createAuditTrail(store.auditLinks, { recorder: clock });
  const builtins = createBuiltinVersions(options.builtins ?? (await loadBuiltinLibrary()));
  const versions = createVersionResolver({ policies: store.policies, builtins });
  const evaluation = createEvaluationService({
    dispatcher,
    audit: auditTrail.recorder,
    rollups: store.rollups,
    policies: versions,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.shadow ? { shadow: options.shadow } : {}),
    ...clock,
  });
  const catalog = createPolicyCatalog({ policies: store.policies, audit: auditTrail.recorder, compile: evaluation.compile, evaluateCases: evaluation.evaluateCases, format: evaluation.format, builtins, versions, ...clock });
  const rollouts = createRolloutControl({
    policies: store.policies,
    rollups: store.rollups,
    versions,
    builtins,
    rolloutTally: options.shadow?.tally ?? { read: async () => ({ counts: { compared: 0, agreed: 0, disagreed: 0, errors: 0, skipped: 0 }, disagreements: [], routed: { stable: NOTHING_ROUTED, rollout: NOTHING_ROUTED } }) },
    audit: auditTrail.recorder,
    ...clock,
  });
  return {
    auditTrail,
    versions,
    evaluation,
    catalog,
    rollouts,
    async flush() {
      await evaluation.flush();
      await auditTrail.flush();
    },
  };
}
