/**
 * The checker: names, types and the structural rules of docs/language.md §3–5. It never changes the
 * tree; what it learns goes into maps keyed by node id (see CheckedModule).
 */
import type { ModuleNode } from '../ast/nodes.js';
import { UninferredEmptyList, type Diagnostic } from '../diagnostics/index.js';
import { orderRules } from './call-graph.js';
import type { CheckedModule, EnumInfo, RecordInfo, RuleInfo, WorkflowInfo } from './checked-module.js';
import { collectDeclarations } from './declarations.js';
import { Reporter } from './reporter.js';
import { ModuleState, RuleScope } from './rule-scope.js';
import { checkRuleBody } from './statement-checker.js';
import { checkWorkflows } from './workflow-checker.js';
import { ERROR, prune, resolveType, type HoleType, type Type, type ValueType } from './types.js';

export interface CheckResult {
  /** null when there is at least one error (warnings alone keep the module). */
  checked: CheckedModule | null;
  diagnostics: Diagnostic[];
}

export function check(module: ModuleNode): CheckResult {
  const reporter = new Reporter();
  const declarations = collectDeclarations(module, reporter);
  const state = new ModuleState(declarations, reporter);

  const scopes: RuleScope[] = [];
  for (const rule of declarations.rules.values()) {
    const scope = new RuleScope(state, rule);
    for (const param of rule.params) {
      const variable = scope.bindNew(param.name, param.type);
      scope.markAssigned(variable.slot);
    }
    checkRuleBody(scope, rule.decl);
    scopes.push(scope);
  }
  checkWorkflows(declarations, reporter);
  const callOrder = orderRules([...declarations.rules.keys()], state.callEdges, reporter);
  reportOpenHoles(state.holes, reporter);

  if (reporter.errorCount > 0) return { checked: null, diagnostics: reporter.sorted() };

  const value = (type: Type): ValueType => resolveType(type) as ValueType;
  const types = new Map<number, ValueType>();
  for (const [id, type] of state.types) types.set(id, value(type));

  const records = new Map<string, RecordInfo>();
  for (const [name, record] of declarations.records) {
    records.set(name, {
      name,
      decl: record.decl,
      fields: record.fields.map((f) => ({ name: f.name, type: value(f.type) })),
      fieldIndex: record.fieldIndex,
    });
  }
  const enums = new Map<string, EnumInfo>();
  for (const [name, enumInfo] of declarations.enums) {
    enums.set(name, { name, decl: enumInfo.decl, variants: enumInfo.variants, variantIndex: enumInfo.variantIndex });
  }
  const rules = new Map<string, RuleInfo>();
  for (const scope of scopes) {
    const rule = scope.rule;
    rules.set(rule.decl.name, {
      name: rule.decl.name,
      decl: rule.decl,
      params: rule.params.map((p) => ({ name: p.name, type: value(p.type) })),
      returnType: value(rule.returnType),
      slotCount: scope.slotTypes.length,
      slotNames: scope.slotNames,
    });
  }
  const workflows = new Map<string, WorkflowInfo>();
  for (const [name, workflow] of declarations.workflows) {
    workflows.set(name, { name, decl: workflow.decl, params: workflow.params.map((p) => ({ name: p.name, type: value(p.type) })) });
  }
  const callees = new Map<string, string[]>([...rules.keys()].map((name) => [name, []]));
  for (const edge of state.callEdges) {
    const list = callees.get(edge.from)!;
    if (!list.includes(edge.to)) list.push(edge.to);
  }
  return {
    checked: {
      module,
      moduleName: module.name.join('.'),
      types,
      resolutions: state.resolutions,
      records,
      enums,
      rules,
      workflows,
      callOrder,
      callees,
    },
    diagnostics: reporter.sorted(),
  };
}

/** An empty list whose element type nothing decided (PL2020), reported once per group of linked lists. */
function reportOpenHoles(holes: readonly HoleType[], reporter: Reporter): void {
  for (const hole of holes) {
    const representative = prune(hole);
    if (representative.kind !== 'Hole') continue;
    reporter.report(UninferredEmptyList.undecided(), hole.origin.span);
    representative.ref = ERROR;
  }
}
