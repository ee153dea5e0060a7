/**
 * Checks statements (docs/language.md §4). Each check returns whether the statement always ends the
 * rule (`Return`, `Fail with`, or an `If`/`Match` all of whose branches do), which drives both the
 * every-path-returns proof (PL2009) and the unreachable-statement warning (PL2021).
 */
import type {
  ForEachStmt,
  IfStmt,
  LetStmt,
  MatchPattern,
  MatchStmt,
  RuleDecl,
  Statement,
} from '../ast/nodes.js';
import { checkExpr } from './expression-checker.js';
import { copyAssigned, intersectAssigned, type RuleScope } from './rule-scope.js';
import {
  ConditionNotBool,
  DuplicateCase,
  ForEachNeedsList,
  LoopVariableShadows,
  MissingReturn,
  PatternMismatch,
  RebindChangesType,
  TypeMismatch,
  UninferredEmptyList,
  UnknownType,
  UnreachableStatement,
} from '../diagnostics/index.js';
import { assignable, BOOL, ERROR, prune, showType, TEXT, type Type, typeToString } from './types.js';

export function checkRuleBody(scope: RuleScope, decl: RuleDecl): void {
  const terminates = checkBlock(scope, decl.body);
  if (!terminates) {
    scope.reporter.report(MissingReturn(decl.name), decl.span);
  }
}

function checkBlock(scope: RuleScope, statements: readonly Statement[]): boolean {
  let terminated = false;
  let warned = false;
  for (const statement of statements) {
    if (terminated && !warned) {
      scope.reporter.report(UnreachableStatement(), statement.span);
      warned = true;
    }
    if (checkStatement(scope, statement)) {
      terminated = true;
      scope.assigned = null;
    }
  }
  return terminated;
}

function checkStatement(scope: RuleScope, statement: Statement): boolean {
  switch (statement.kind) {
    case 'Let':
      checkLet(scope, statement);
      return false;
    case 'Return': {
      const type = checkExpr(scope, statement.value);
      const expected = scope.rule.returnType;
      if (!assignable(type, expected)) {
        scope.reporter.report(TypeMismatch.returned(scope.rule.decl.name, showType(expected), showType(type)), statement.value.span);
      }
      return true;
    }
    case 'Fail': {
      const type = checkExpr(scope, statement.message);
      if (!assignable(type, TEXT)) {
        scope.reporter.report(TypeMismatch.failMessage(showType(type)), statement.message.span);
      }
      return true;
    }
    case 'If':
      return checkIf(scope, statement);
    case 'Match':
      return checkMatch(scope, statement);
    case 'ForEach':
      checkForEach(scope, statement);
      return false;
  }
}

function checkLet(scope: RuleScope, statement: LetStmt): void {
  const type = checkExpr(scope, statement.value);
  const existing = scope.names.get(statement.name);
  if (existing) {
    if (!assignable(type, existing.type)) {
      scope.reporter.report(RebindChangesType(statement.name, showType(type), showType(existing.type)), statement.span);
    }
    scope.module.resolutions.set(statement.id, { kind: 'slot', slot: existing.slot });
    scope.markAssigned(existing.slot);
    return;
  }
  const variable = scope.bindNew(statement.name, type);
  scope.module.resolutions.set(statement.id, { kind: 'slot', slot: variable.slot });
  scope.markAssigned(variable.slot);
}

function checkCondition(scope: RuleScope, condition: Parameters<typeof checkExpr>[1]): void {
  const type = checkExpr(scope, condition);
  if (!assignable(type, BOOL)) {
    scope.reporter.report(ConditionNotBool(typeToString(type)), condition.span);
  }
}

function checkIf(scope: RuleScope, statement: IfStmt): boolean {
  const incoming = scope.assigned;
  const outcomes: (Set<number> | null)[] = [];
  let allTerminate = true;
  for (const branch of statement.branches) {
    scope.assigned = copyAssigned(incoming);
    checkCondition(scope, branch.condition);
    if (!checkBlock(scope, branch.body)) allTerminate = false;
    outcomes.push(scope.assigned);
  }
  if (statement.otherwise) {
    scope.assigned = copyAssigned(incoming);
    if (!checkBlock(scope, statement.otherwise)) allTerminate = false;
    outcomes.push(scope.assigned);
  } else {
    allTerminate = false;
    outcomes.push(incoming);
  }
  scope.assigned = intersectAssigned(outcomes);
  return allTerminate;
}

type SubjectKind = { kind: 'enum'; name: string } | { kind: 'Int' } | { kind: 'Text' } | { kind: 'error' };

function patternText(pattern: MatchPattern): string {
  switch (pattern.kind) {
    case 'IntPattern':
      return String(pattern.value);
    case 'TextPattern':
      return JSON.stringify(pattern.value);
    case 'VariantPattern':
      return pattern.enumName === null ? pattern.variant : `${pattern.enumName}.${pattern.variant}`;
  }
}

function checkMatch(scope: RuleScope, statement: MatchStmt): boolean {
  const { reporter, declarations } = scope;
  const subjectType = prune(checkExpr(scope, statement.subject));
  let subject: SubjectKind;
  if (subjectType.kind === 'Enum') subject = { kind: 'enum', name: subjectType.name };
  else if (subjectType.kind === 'Int' || subjectType.kind === 'Text') subject = { kind: subjectType.kind };
  else {
    if (subjectType.kind !== 'Error') {
      reporter.report(TypeMismatch.matchSubject(typeToString(subjectType)), statement.subject.span);
    }
    subject = { kind: 'error' };
  }

  const named = new Set<string | number>();
  const checkPattern = (pattern: MatchPattern): void => {
    const text = patternText(pattern);
    let key: string | number | null = null;
    switch (subject.kind) {
      case 'error':
        return;
      case 'enum': {
        const enumInfo = declarations.enums.get(subject.name)!;
        if (pattern.kind !== 'VariantPattern') {
          reporter.report(PatternMismatch.needsVariants(text, subject.name), pattern.span);
          return;
        }
        if (pattern.enumName !== null && pattern.enumName !== subject.name) {
          if (!declarations.enums.has(pattern.enumName)) {
            reporter.report(UnknownType.unknownEnum(pattern.enumName, declarations.enums.keys()), pattern.span);
          } else {
            reporter.report(PatternMismatch.variantOfOther(text, pattern.enumName, subject.name), pattern.span);
          }
          return;
        }
        const index = enumInfo.variantIndex.get(pattern.variant);
        if (index === undefined) {
          const owner = declarations.variantOwner.get(pattern.variant);
          if (owner !== undefined) {
            reporter.report(PatternMismatch.variantOfOther(pattern.variant, owner, subject.name), pattern.span);
          } else {
            reporter.report(PatternMismatch.noVariant(subject.name, pattern.variant, enumInfo.variants), pattern.span);
          }
          return;
        }
        scope.module.resolutions.set(pattern.id, { kind: 'variant', enumName: subject.name, index });
        key = index;
        break;
      }
      case 'Int':
        if (pattern.kind !== 'IntPattern') {
          reporter.report(PatternMismatch.notInt(text), pattern.span);
          return;
        }
        key = pattern.value;
        break;
      case 'Text':
        if (pattern.kind !== 'TextPattern') {
          reporter.report(PatternMismatch.notText(text), pattern.span);
          return;
        }
        key = pattern.value;
        break;
    }
    if (named.has(key)) {
      reporter.report(DuplicateCase(text), pattern.span);
      return;
    }
    named.add(key);
  };

  const incoming = scope.assigned;
  const outcomes: (Set<number> | null)[] = [];
  let allTerminate = true;
  for (const matchCase of statement.cases) {
    for (const pattern of matchCase.patterns) checkPattern(pattern);
    scope.assigned = copyAssigned(incoming);
    if (!checkBlock(scope, matchCase.body)) allTerminate = false;
    outcomes.push(scope.assigned);
  }
  let complete = statement.otherwise !== null;
  if (statement.otherwise) {
    scope.assigned = copyAssigned(incoming);
    if (!checkBlock(scope, statement.otherwise)) allTerminate = false;
    outcomes.push(scope.assigned);
  } else if (subject.kind === 'enum') {
    complete = declarations.enums.get(subject.name)!.variants.every((_, index) => named.has(index));
  }
  if (!complete) {
    allTerminate = false;
    outcomes.push(incoming);
  }
  scope.assigned = intersectAssigned(outcomes);
  return allTerminate;
}

function checkForEach(scope: RuleScope, statement: ForEachStmt): void {
  const iterableType = prune(checkExpr(scope, statement.iterable));
  let element: Type = ERROR;
  if (iterableType.kind === 'List') {
    const inner = prune(iterableType.element);
    if (inner.kind === 'Hole') {
      scope.reporter.report(UninferredEmptyList.here(), statement.iterable.span);
      inner.ref = ERROR;
    } else {
      element = inner;
    }
  } else if (iterableType.kind !== 'Error') {
    scope.reporter.report(ForEachNeedsList(typeToString(iterableType)), statement.iterable.span);
  }

  const shadowed = scope.names.get(statement.variable);
  if (shadowed) {
    scope.reporter.report(LoopVariableShadows(statement.variable), statement.span);
  }
  const variable = scope.bindNew(statement.variable, element);
  scope.module.resolutions.set(statement.id, { kind: 'slot', slot: variable.slot });
  const incoming = scope.assigned;
  scope.assigned = copyAssigned(incoming);
  scope.markAssigned(variable.slot);
  checkBlock(scope, statement.body);
  // The body may run zero times: afterwards only what held before the loop is certain.
  scope.assigned = incoming;
  if (shadowed) scope.names.set(statement.variable, shadowed);
  else scope.names.delete(statement.variable);
}
