/**
 * Types every expression (docs/language.md §5) and resolves its names; the type of each node is
 * recorded by id. An expression with an error gets the Error type, which fits anywhere, so that
 * one mistake yields one diagnostic.
 */
import type {
  BetweenExpr,
  BinaryExpr,
  CallExpr,
  CompareExpr,
  Expr,
  FieldAccessExpr,
  ListExpr,
  NameExpr,
  RecordExpr,
  UnaryExpr,
} from '../ast/nodes.js';
import { BUILTIN_NAMES, checkBuiltinCall, isBuiltinName } from '../builtins/index.js';
import type { RuleScope } from './rule-scope.js';
import { didYouMean } from '../diagnostics/index.js';
import {
  assignable,
  BOOL,
  commonType,
  ERROR,
  FLOAT,
  INT,
  isNumeric,
  listOf,
  newHole,
  prune,
  TEXT,
  type Type,
  typeToString,
} from './types.js';

/** Help for the most common mismatch: a Float where an Int is needed. */
export function conversionHelp(from: Type, to: Type): string | undefined {
  const f = prune(from);
  const t = prune(to);
  if (f.kind === 'Float' && t.kind === 'Int') return 'use `round`, `floor` or `ceil` to turn a `Float` into an `Int`';
  if (t.kind === 'Text' && f.kind !== 'Text' && f.kind !== 'List' && f.kind !== 'Record') return 'use `text(…)` to turn a value into `Text`';
  return undefined;
}

export function checkExpr(scope: RuleScope, expr: Expr): Type {
  const type = synthesize(scope, expr);
  scope.module.types.set(expr.id, type);
  return type;
}

function synthesize(scope: RuleScope, expr: Expr): Type {
  switch (expr.kind) {
    case 'IntLiteral':
      return INT;
    case 'FloatLiteral':
      return FLOAT;
    case 'TextLiteral':
      return TEXT;
    case 'BoolLiteral':
      return BOOL;
    case 'Name':
      return checkName(scope, expr);
    case 'List':
      return checkList(scope, expr);
    case 'Record':
      return checkRecord(scope, expr);
    case 'FieldAccess':
      return checkFieldAccess(scope, expr);
    case 'Call':
      return checkCall(scope, expr);
    case 'Unary':
      return checkUnary(scope, expr);
    case 'Binary':
      return checkBinary(scope, expr);
    case 'Compare':
      return checkCompare(scope, expr);
    case 'Between':
      return checkBetween(scope, expr);
  }
}

function checkName(scope: RuleScope, expr: NameExpr): Type {
  const { declarations, reporter } = scope;
  const variable = scope.names.get(expr.name);
  if (variable) {
    if (!scope.isAssigned(variable.slot)) {
      reporter.error(
        'PL2024',
        `\`${expr.name}\` may not have a value here: it is bound only on some of the paths that lead here`,
        expr.span,
        'bind it before the `If`, `Match` or `For each` that binds it, or in every branch',
      );
      scope.markAssigned(variable.slot);
    }
    scope.module.resolutions.set(expr.id, { kind: 'slot', slot: variable.slot });
    return variable.type;
  }
  const owner = declarations.variantOwner.get(expr.name);
  if (owner !== undefined) {
    const index = declarations.enums.get(owner)!.variantIndex.get(expr.name)!;
    scope.module.resolutions.set(expr.id, { kind: 'variant', enumName: owner, index });
    return { kind: 'Enum', name: owner };
  }
  if (declarations.records.has(expr.name)) {
    reporter.error('PL2001', `\`${expr.name}\` is a record type, not a value`, expr.span, `build one with \`${expr.name} with … set to …\``);
  } else if (declarations.enums.has(expr.name)) {
    reporter.error('PL2001', `\`${expr.name}\` is an enum type, not a value`, expr.span, `name one of its variants, e.g. \`${expr.name}.${declarations.enums.get(expr.name)!.variants[0] ?? 'Variant'}\``);
  } else if (declarations.rules.has(expr.name)) {
    reporter.error('PL2001', `\`${expr.name}\` is a rule, not a value`, expr.span, `call it: \`${expr.name}(…)\``);
  } else {
    const candidates = [...scope.names.keys(), ...declarations.variantOwner.keys()];
    reporter.error('PL2001', `unknown name \`${expr.name}\`${didYouMean(expr.name, candidates)}`, expr.span);
  }
  return ERROR;
}

function checkList(scope: RuleScope, expr: ListExpr): Type {
  if (expr.elements.length === 0) {
    const hole = newHole(expr);
    scope.module.holes.push(hole);
    return listOf(hole);
  }
  let element = checkExpr(scope, expr.elements[0]!);
  for (let i = 1; i < expr.elements.length; i++) {
    const item = expr.elements[i]!;
    const type = checkExpr(scope, item);
    const common = commonType(element, type);
    if (common === null) {
      scope.reporter.error(
        'PL2006',
        `list elements must all have one type: expected \`${typeToString(element)}\`, found \`${typeToString(type)}\``,
        item.span,
      );
    } else {
      element = common;
    }
  }
  return listOf(element);
}

function checkRecord(scope: RuleScope, expr: RecordExpr): Type {
  const { declarations, reporter } = scope;
  const record = declarations.records.get(expr.typeName);
  if (!record) {
    for (const field of expr.fields) checkExpr(scope, field.value);
    if (declarations.enums.has(expr.typeName) || declarations.rules.has(expr.typeName)) {
      reporter.error('PL2002', `\`${expr.typeName}\` is not a record type`, expr.span);
    } else {
      reporter.error('PL2002', `unknown record type \`${expr.typeName}\`${didYouMean(expr.typeName, declarations.records.keys())}`, expr.span);
    }
    return ERROR;
  }
  const set = new Set<string>();
  for (const field of expr.fields) {
    const valueType = checkExpr(scope, field.value);
    const index = record.fieldIndex.get(field.name);
    if (index === undefined) {
      reporter.error(
        'PL2015',
        `\`${expr.typeName}\` has no field \`${field.name}\`${didYouMean(field.name, record.fieldIndex.keys())}`,
        field.span,
      );
      continue;
    }
    if (set.has(field.name)) {
      reporter.error('PL2015', `field \`${field.name}\` is set twice`, field.span);
      continue;
    }
    set.add(field.name);
    scope.module.resolutions.set(field.id, { kind: 'field', recordName: expr.typeName, index });
    const fieldType = record.fields[index]!.type;
    if (!assignable(valueType, fieldType)) {
      reporter.error(
        'PL2006',
        `field \`${field.name}\` of \`${expr.typeName}\` must be \`${typeToString(fieldType)}\`, found \`${typeToString(valueType)}\``,
        field.value.span,
        conversionHelp(valueType, fieldType),
      );
    }
  }
  const missing = record.fields.filter((f) => !set.has(f.name)).map((f) => `\`${f.name}\``);
  if (missing.length > 0) {
    reporter.error(
      'PL2014',
      `\`${expr.typeName}\` is missing ${missing.length === 1 ? 'field' : 'fields'} ${missing.join(', ')}`,
      expr.span,
      'every field must be set; there is no null',
    );
  }
  return { kind: 'Record', name: expr.typeName };
}

function checkFieldAccess(scope: RuleScope, expr: FieldAccessExpr): Type {
  const { declarations, reporter } = scope;
  const object = expr.object;
  if (object.kind === 'Name' && !scope.names.has(object.name) && declarations.enums.has(object.name)) {
    const enumInfo = declarations.enums.get(object.name)!;
    const index = enumInfo.variantIndex.get(expr.field);
    if (index === undefined) {
      reporter.error(
        'PL2001',
        `\`${object.name}\` has no variant \`${expr.field}\`${didYouMean(expr.field, enumInfo.variants)}`,
        expr.span,
      );
      return ERROR;
    }
    scope.module.resolutions.set(expr.id, { kind: 'variant', enumName: object.name, index });
    return { kind: 'Enum', name: object.name };
  }
  const objectType = prune(checkExpr(scope, object));
  if (objectType.kind === 'Error') return ERROR;
  if (objectType.kind === 'Record') {
    const record = declarations.records.get(objectType.name)!;
    const index = record.fieldIndex.get(expr.field);
    if (index === undefined) {
      reporter.error(
        'PL2016',
        `\`${objectType.name}\` has no field \`${expr.field}\`${didYouMean(expr.field, record.fieldIndex.keys())}`,
        expr.span,
      );
      return ERROR;
    }
    scope.module.resolutions.set(expr.id, { kind: 'field', recordName: objectType.name, index });
    return record.fields[index]!.type;
  }
  reporter.error('PL2016', `cannot read field \`${expr.field}\` of a \`${typeToString(objectType)}\` value; only records have fields`, expr.span);
  return ERROR;
}

function checkCall(scope: RuleScope, expr: CallExpr): Type {
  const { declarations, reporter } = scope;
  const argTypes = expr.args.map((arg) => checkExpr(scope, arg));
  const rule = declarations.rules.get(expr.callee);
  if (rule) {
    scope.module.resolutions.set(expr.id, { kind: 'rule', name: expr.callee });
    scope.module.callEdges.push({ from: scope.rule.decl.name, to: expr.callee, call: expr });
    if (argTypes.length !== rule.params.length) {
      const n = rule.params.length;
      reporter.error('PL2013', `rule \`${expr.callee}\` takes ${n} argument${n === 1 ? '' : 's'}, got ${argTypes.length}`, expr.span);
      return rule.returnType;
    }
    for (let i = 0; i < argTypes.length; i++) {
      const param = rule.params[i]!;
      if (!assignable(argTypes[i]!, param.type)) {
        reporter.error(
          'PL2006',
          `argument ${i + 1} of \`${expr.callee}\` (\`${param.name}\`) must be \`${typeToString(param.type)}\`, found \`${typeToString(argTypes[i]!)}\``,
          expr.args[i]!.span,
          conversionHelp(argTypes[i]!, param.type),
        );
      }
    }
    return rule.returnType;
  }
  if (isBuiltinName(expr.callee)) {
    scope.module.resolutions.set(expr.id, { kind: 'builtin', name: expr.callee });
    return checkBuiltinCall(expr.callee, expr, argTypes, reporter);
  }
  const candidates = [...declarations.rules.keys(), ...BUILTIN_NAMES];
  reporter.error('PL2012', `unknown rule or function \`${expr.callee}\`${didYouMean(expr.callee, candidates)}`, expr.span);
  return ERROR;
}

function checkUnary(scope: RuleScope, expr: UnaryExpr): Type {
  const operand = checkExpr(scope, expr.operand);
  const t = prune(operand);
  if (expr.op === 'not') {
    if (!assignable(t, BOOL)) {
      scope.reporter.error('PL2007', `\`not\` needs a \`Bool\` value, found \`${typeToString(t)}\``, expr.operand.span);
    }
    return BOOL;
  }
  if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
  scope.reporter.error('PL2007', `cannot negate a \`${typeToString(t)}\` value; only numbers can be negated`, expr.span);
  return ERROR;
}

const ARITHMETIC_PHRASE = {
  add: (a: string, b: string) => `cannot add \`${a}\` and \`${b}\``,
  sub: (a: string, b: string) => `cannot subtract \`${b}\` from \`${a}\``,
  mul: (a: string, b: string) => `cannot multiply \`${a}\` by \`${b}\``,
  div: (a: string, b: string) => `cannot divide \`${a}\` by \`${b}\``,
  mod: (a: string, b: string) => `cannot take \`${a}\` modulo \`${b}\``,
} as const;

function checkBinary(scope: RuleScope, expr: BinaryExpr): Type {
  const left = prune(checkExpr(scope, expr.left));
  const right = prune(checkExpr(scope, expr.right));
  if (expr.op === 'and' || expr.op === 'or') {
    for (const [side, node] of [
      [left, expr.left],
      [right, expr.right],
    ] as const) {
      if (!assignable(side, BOOL)) {
        scope.reporter.error('PL2007', `\`${expr.op}\` needs \`Bool\` values, found \`${typeToString(side)}\``, node.span);
      }
    }
    return BOOL;
  }
  if (left.kind === 'Error' || right.kind === 'Error') {
    if (expr.op === 'div') return FLOAT;
    return ERROR;
  }
  if (expr.op === 'add' && left.kind === 'Text' && right.kind === 'Text') return TEXT;
  if (isNumeric(left) && isNumeric(right)) {
    if (expr.op === 'div') return FLOAT;
    return left.kind === 'Int' && right.kind === 'Int' ? INT : FLOAT;
  }
  const help = left.kind === 'Text' || right.kind === 'Text' ? 'use `text(…)` to turn a value into `Text` before joining texts with `+`' : undefined;
  scope.reporter.error('PL2007', ARITHMETIC_PHRASE[expr.op](typeToString(left), typeToString(right)), expr.span, expr.op === 'add' ? help : undefined);
  return ERROR;
}

function checkCompare(scope: RuleScope, expr: CompareExpr): Type {
  const { reporter } = scope;
  const leftType = checkExpr(scope, expr.left);
  const rightType = checkExpr(scope, expr.right);
  const left = prune(leftType);
  const right = prune(rightType);
  switch (expr.op) {
    case 'eq':
    case 'ne':
      if (commonType(left, right) === null) {
        reporter.error('PL2007', `cannot compare \`${typeToString(left)}\` with \`${typeToString(right)}\``, expr.span);
      }
      break;
    case 'lt':
    case 'gt':
    case 'le':
    case 'ge':
      if (!isNumeric(left) || !isNumeric(right)) {
        reporter.error(
          'PL2007',
          `cannot order \`${typeToString(left)}\` and \`${typeToString(right)}\`; ordering comparisons need numbers`,
          expr.span,
        );
      }
      break;
    case 'in':
      if (right.kind === 'List') {
        if (commonType(left, right.element) === null) {
          reporter.error('PL2007', `cannot look for a \`${typeToString(left)}\` value in a \`${typeToString(right)}\``, expr.span);
        }
      } else if (right.kind !== 'Error') {
        reporter.error('PL2007', `\`is one of\` needs a list on its right, found \`${typeToString(right)}\``, expr.right.span);
      }
      break;
    case 'contains':
      if (left.kind === 'Text') {
        if (!assignable(right, TEXT)) {
          reporter.error('PL2007', `a \`Text\` can only contain \`Text\`, found \`${typeToString(right)}\``, expr.right.span);
        }
      } else if (left.kind === 'List') {
        if (commonType(left.element, right) === null) {
          reporter.error('PL2007', `cannot look for a \`${typeToString(right)}\` value in a \`${typeToString(left)}\``, expr.span);
        }
      } else if (left.kind !== 'Error') {
        reporter.error('PL2007', `\`contains\` needs a list or \`Text\` on its left, found \`${typeToString(left)}\``, expr.left.span);
      }
      break;
  }
  return BOOL;
}

function checkBetween(scope: RuleScope, expr: BetweenExpr): Type {
  for (const part of [expr.value, expr.low, expr.high]) {
    const t = checkExpr(scope, part);
    if (!isNumeric(t)) {
      scope.reporter.error('PL2007', `\`between\` compares numbers, found \`${typeToString(t)}\``, part.span);
    }
  }
  return BOOL;
}
