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
import { checkExpr, conversionHelp } from './expression-checker.js';
import { copyAssigned, intersectAssigned, type RuleScope } from './rule-scope.js';
import { didYouMean } from '../diagnostics/index.js';
import { assignable, BOOL, ERROR, prune, TEXT, type Type, typeToString } from './types.js';

export function checkRuleBody(scope: RuleScope, decl: RuleDecl): void {
  const terminates = checkBlock(scope, decl.body);
  if (!terminates) {
    scope.reporter.error(
      'PL2009',
      `not every path of rule \`${decl.name}\` returns a value`,
      decl.span,
      'end every path with `Return` or `Fail with`; an `If` needs an `Otherwise`, a `Match` an `Otherwise` or every variant',
    );
  }
}

function checkBlock(scope: RuleScope, statements: readonly Statement[]): boolean {
  let terminated = false;
  let warned = false;
  for (const statement of statements) {
    if (terminated && !warned) {
      scope.reporter.warning('PL2021', 'unreachable statement: every path before it has already ended the rule', statement.span);
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
        scope.reporter.error(
          'PL2006',
          `rule \`${scope.rule.decl.name}\` produces \`${typeToString(expected)}\`, but this returns \`${typeToString(type)}\``,
          statement.value.span,
          conversionHelp(type, expected),
        );
      }
      return true;
    }
    case 'Fail': {
      const type = checkExpr(scope, statement.message);
      if (!assignable(type, TEXT)) {
        scope.reporter.error(
          'PL2006',
          `\`Fail with\` needs a \`Text\` message, found \`${typeToString(type)}\``,
          statement.message.span,
          conversionHelp(type, TEXT),
        );
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
      scope.reporter.error(
        'PL2010',
        `cannot rebind \`${statement.name}\` to a \`${typeToString(type)}\` value: it holds \`${typeToString(existing.type)}\``,
        statement.span,
        conversionHelp(type, existing.type) ?? 'a rebinding keeps the type of the first binding; choose a new name',
      );
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
    scope.reporter.error('PL2008', `condition must be a \`Bool\`, found \`${typeToString(type)}\``, condition.span);
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
      reporter.error('PL2006', `\`Match\` needs an enum, \`Int\` or \`Text\` value, found \`${typeToString(subjectType)}\``, statement.subject.span);
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
          reporter.error('PL2018', `\`${text}\` does not fit: the value matched is a \`${subject.name}\`, so \`When\` needs its variants`, pattern.span);
          return;
        }
        if (pattern.enumName !== null && pattern.enumName !== subject.name) {
          if (!declarations.enums.has(pattern.enumName)) {
            reporter.error('PL2002', `unknown enum \`${pattern.enumName}\`${didYouMean(pattern.enumName, declarations.enums.keys())}`, pattern.span);
          } else {
            reporter.error('PL2018', `\`${text}\` is a variant of \`${pattern.enumName}\`, but the value matched is a \`${subject.name}\``, pattern.span);
          }
          return;
        }
        const index = enumInfo.variantIndex.get(pattern.variant);
        if (index === undefined) {
          const owner = declarations.variantOwner.get(pattern.variant);
          if (owner !== undefined) {
            reporter.error('PL2018', `\`${pattern.variant}\` is a variant of \`${owner}\`, but the value matched is a \`${subject.name}\``, pattern.span);
          } else {
            reporter.error('PL2018', `\`${subject.name}\` has no variant \`${pattern.variant}\`${didYouMean(pattern.variant, enumInfo.variants)}`, pattern.span);
          }
          return;
        }
        scope.module.resolutions.set(pattern.id, { kind: 'variant', enumName: subject.name, index });
        key = index;
        break;
      }
      case 'Int':
        if (pattern.kind !== 'IntPattern') {
          reporter.error('PL2018', `\`${text}\` does not fit: the value matched is an \`Int\``, pattern.span);
          return;
        }
        key = pattern.value;
        break;
      case 'Text':
        if (pattern.kind !== 'TextPattern') {
          reporter.error('PL2018', `\`${text}\` does not fit: the value matched is a \`Text\``, pattern.span);
          return;
        }
        key = pattern.value;
        break;
    }
    if (named.has(key)) {
      reporter.error('PL2017', `\`${text}\` is already named by an earlier \`When\``, pattern.span);
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
      scope.reporter.error(
        'PL2020',
        'the element type of this empty list cannot be inferred here',
        statement.iterable.span,
        'give the list at least one element or bind it where its type is known',
      );
      inner.ref = ERROR;
    } else {
      element = inner;
    }
  } else if (iterableType.kind !== 'Error') {
    scope.reporter.error('PL2019', `\`For each\` needs a list, found \`${typeToString(iterableType)}\``, statement.iterable.span);
  }

  const shadowed = scope.names.get(statement.variable);
  if (shadowed) {
    scope.reporter.error(
      'PL2023',
      `loop variable \`${statement.variable}\` reuses the name of a variable that is already bound`,
      statement.span,
      'choose another name for the loop variable',
    );
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
