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
import {
  MissingField,
  OperandMismatch,
  PossiblyUnbound,
  TypeMismatch,
  UnknownCallee,
  UnknownFieldAccess,
  UnknownName,
  UnknownOrDuplicateField,
  UnknownType,
  WrongArgumentCount,
} from '../diagnostics/index.js';
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
  showType,
  TEXT,
  type Type,
  typeToString,
} from './types.js';

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
      reporter.report(PossiblyUnbound(expr.name), expr.span);
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
    reporter.report(UnknownName.recordType(expr.name), expr.span);
  } else if (declarations.enums.has(expr.name)) {
    reporter.report(UnknownName.enumType(expr.name, declarations.enums.get(expr.name)!.variants[0] ?? 'Variant'), expr.span);
  } else if (declarations.rules.has(expr.name)) {
    reporter.report(UnknownName.rule(expr.name), expr.span);
  } else {
    const candidates = [...scope.names.keys(), ...declarations.variantOwner.keys()];
    reporter.report(UnknownName.unknown(expr.name, candidates), expr.span);
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
      scope.reporter.report(TypeMismatch.listElement(typeToString(element), typeToString(type)), item.span);
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
      reporter.report(UnknownType.notRecordType(expr.typeName), expr.span);
    } else {
      reporter.report(UnknownType.unknownRecordType(expr.typeName, declarations.records.keys()), expr.span);
    }
    return ERROR;
  }
  const set = new Set<string>();
  for (const field of expr.fields) {
    const valueType = checkExpr(scope, field.value);
    const index = record.fieldIndex.get(field.name);
    if (index === undefined) {
      reporter.report(UnknownOrDuplicateField.unknown(expr.typeName, field.name, record.fieldIndex.keys()), field.span);
      continue;
    }
    if (set.has(field.name)) {
      reporter.report(UnknownOrDuplicateField.setTwice(field.name), field.span);
      continue;
    }
    set.add(field.name);
    scope.module.resolutions.set(field.id, { kind: 'field', recordName: expr.typeName, index });
    const fieldType = record.fields[index]!.type;
    if (!assignable(valueType, fieldType)) {
      reporter.report(TypeMismatch.recordField(field.name, expr.typeName, showType(fieldType), showType(valueType)), field.value.span);
    }
  }
  const missing = record.fields.filter((f) => !set.has(f.name)).map((f) => f.name);
  if (missing.length > 0) reporter.report(MissingField(expr.typeName, missing), expr.span);
  return { kind: 'Record', name: expr.typeName };
}

function checkFieldAccess(scope: RuleScope, expr: FieldAccessExpr): Type {
  const { declarations, reporter } = scope;
  const object = expr.object;
  if (object.kind === 'Name' && !scope.names.has(object.name) && declarations.enums.has(object.name)) {
    const enumInfo = declarations.enums.get(object.name)!;
    const index = enumInfo.variantIndex.get(expr.field);
    if (index === undefined) {
      reporter.report(UnknownName.noVariant(object.name, expr.field, enumInfo.variants), expr.span);
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
      reporter.report(UnknownFieldAccess.noField(objectType.name, expr.field, record.fieldIndex.keys()), expr.span);
      return ERROR;
    }
    scope.module.resolutions.set(expr.id, { kind: 'field', recordName: objectType.name, index });
    return record.fields[index]!.type;
  }
  reporter.report(UnknownFieldAccess.notRecord(expr.field, typeToString(objectType)), expr.span);
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
      reporter.report(WrongArgumentCount.rule(expr.callee, rule.params.length, argTypes.length), expr.span);
      return rule.returnType;
    }
    for (let i = 0; i < argTypes.length; i++) {
      const param = rule.params[i]!;
      if (!assignable(argTypes[i]!, param.type)) {
        reporter.report(TypeMismatch.ruleArgument(i + 1, expr.callee, param.name, showType(param.type), showType(argTypes[i]!)), expr.args[i]!.span);
      }
    }
    return rule.returnType;
  }
  if (isBuiltinName(expr.callee)) {
    scope.module.resolutions.set(expr.id, { kind: 'builtin', name: expr.callee });
    return checkBuiltinCall(expr.callee, expr, argTypes, reporter);
  }
  const candidates = [...declarations.rules.keys(), ...BUILTIN_NAMES];
  reporter.report(UnknownCallee.unknown(expr.callee, candidates), expr.span);
  return ERROR;
}

function checkUnary(scope: RuleScope, expr: UnaryExpr): Type {
  const operand = checkExpr(scope, expr.operand);
  const t = prune(operand);
  if (expr.op === 'not') {
    if (!assignable(t, BOOL)) {
      scope.reporter.report(OperandMismatch.not(typeToString(t)), expr.operand.span);
    }
    return BOOL;
  }
  if (t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error') return t;
  scope.reporter.report(OperandMismatch.negate(typeToString(t)), expr.span);
  return ERROR;
}

function checkBinary(scope: RuleScope, expr: BinaryExpr): Type {
  const left = prune(checkExpr(scope, expr.left));
  const right = prune(checkExpr(scope, expr.right));
  if (expr.op === 'and' || expr.op === 'or') {
    for (const [side, node] of [
      [left, expr.left],
      [right, expr.right],
    ] as const) {
      if (!assignable(side, BOOL)) {
        scope.reporter.report(OperandMismatch.logical(expr.op, typeToString(side)), node.span);
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
  scope.reporter.report(OperandMismatch.arithmetic(expr.op, showType(left), showType(right)), expr.span);
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
        reporter.report(OperandMismatch.compare(typeToString(left), typeToString(right)), expr.span);
      }
      break;
    case 'lt':
    case 'gt':
    case 'le':
    case 'ge':
      if (!isNumeric(left) || !isNumeric(right)) {
        reporter.report(OperandMismatch.order(typeToString(left), typeToString(right)), expr.span);
      }
      break;
    case 'in':
      if (right.kind === 'List') {
        if (commonType(left, right.element) === null) {
          reporter.report(OperandMismatch.lookIn(typeToString(left), typeToString(right)), expr.span);
        }
      } else if (right.kind !== 'Error') {
        reporter.report(OperandMismatch.oneOfNeedsList(typeToString(right)), expr.right.span);
      }
      break;
    case 'contains':
      if (left.kind === 'Text') {
        if (!assignable(right, TEXT)) {
          reporter.report(OperandMismatch.textContains(typeToString(right)), expr.right.span);
        }
      } else if (left.kind === 'List') {
        if (commonType(left.element, right) === null) {
          reporter.report(OperandMismatch.lookIn(typeToString(right), typeToString(left)), expr.span);
        }
      } else if (left.kind !== 'Error') {
        reporter.report(OperandMismatch.containsNeedsCollection(typeToString(left)), expr.left.span);
      }
      break;
  }
  return BOOL;
}

function checkBetween(scope: RuleScope, expr: BetweenExpr): Type {
  for (const part of [expr.value, expr.low, expr.high]) {
    const t = checkExpr(scope, part);
    if (!isNumeric(t)) {
      scope.reporter.report(OperandMismatch.between(typeToString(t)), part.span);
    }
  }
  return BOOL;
}
