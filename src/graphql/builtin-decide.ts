import type { EvaluationItem, ItemResult } from '../engine/index.js';
import type { DecideFn } from './decide.js';

/** The parts of a built-in module (src/policies/builtin-library.ts) a decision needs. */
export interface DecisionModule {
  moduleName: string;
  source: string;
  locale: string;
}

export interface BuiltinDecideOptions {
  modules: readonly DecisionModule[];
  /** The evaluation path: `dispatcher.evaluate` (queue and workers) or `pool.evaluate` (in process). */
  evaluate(item: EvaluationItem): Promise<ItemResult>;
}

/**
 * Decisions answered by the built-in library alone, for every tenant: what `decide` does for a
 * tenant that deployed nothing. The policy registry's `decide` adds each tenant's own versions.
 */
export function createBuiltinDecide(options: BuiltinDecideOptions): DecideFn {
  const modules = new Map(options.modules.map((module) => [module.moduleName, module]));
  return async (_tenantId, policyModule, policyFunction, args) => {
    const module = modules.get(policyModule);
    if (!module) throw new Error(`no built-in policy module \`${policyModule}\``);
    return options.evaluate({ source: module.source, locale: module.locale, functionName: policyFunction, context: args });
  };
}
