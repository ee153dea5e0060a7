/**
 * The type of a variable or field path (`applicant.address.city`), also while the document does
 * not check: parameters as written, record fields as declared, other variables from the latest
 * analysis that checked.
 */
import type { Expr, ModuleNode, RuleDecl } from '../language/index.js';
import type { Analysis } from './analysis.js';
import type { ShownType } from './locale-words.js';
import { findRecord, recordName, variableType } from './module-outline.js';

export interface TypeScope {
  readonly module: ModuleNode;
  readonly rule: RuleDecl | undefined;
  /** The current analysis when it checked, else the latest that did. */
  readonly typed: Analysis | null;
  /** The current analysis's types, when it checked. */
  readonly types: Analysis['types'];
}

export function fieldType(module: ModuleNode, record: string, field: string): ShownType | undefined {
  return findRecord(module, record)?.fields.find((f) => f.name === field)?.type;
}

/** The type of `first.second.…`: a variable of the rule, then fields. */
export function pathType(scope: TypeScope, path: readonly string[]): ShownType | undefined {
  const [first, ...fields] = path;
  if (first === undefined || scope.rule === undefined) return undefined;
  let type = variableType(scope.rule, first, scope.typed);
  for (const field of fields) {
    const record = recordName(scope.module, type);
    type = record === undefined ? undefined : fieldType(scope.module, record, field);
  }
  return type;
}

function namePath(expr: Expr): string[] | undefined {
  if (expr.kind === 'Name') return [expr.name];
  if (expr.kind !== 'FieldAccess') return undefined;
  const object = namePath(expr.object);
  return object && [...object, expr.field];
}

export function expressionType(scope: TypeScope, expr: Expr): ShownType | undefined {
  const checked = scope.types?.get(expr.id);
  if (checked !== undefined) return checked;
  const path = namePath(expr);
  return path && pathType(scope, path);
}
