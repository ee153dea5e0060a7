/**
 * Types as the checker sees them. `Hole` stands for the still unknown element type of an empty
 * list literal; unification fills it in at the first use that decides it. `Error` marks an
 * expression that already has a diagnostic, so one mistake is reported once.
 */
import type { ListExpr } from '../ast/nodes.js';
import type { ShownType } from '../diagnostics/index.js';

export interface PrimitiveType {
  readonly kind: 'Int' | 'Float' | 'Text' | 'Bool';
}
export interface ListType {
  readonly kind: 'List';
  readonly element: Type;
}
export interface RecordType {
  readonly kind: 'Record';
  readonly name: string;
}
export interface EnumType {
  readonly kind: 'Enum';
  readonly name: string;
}
export interface ErrorType {
  readonly kind: 'Error';
}
export interface HoleType {
  readonly kind: 'Hole';
  ref: Type | null;
  /** The empty list literal that introduced the hole; PL2020 points at it if it stays open. */
  readonly origin: ListExpr;
}

export type Type = PrimitiveType | ListType | RecordType | EnumType | ErrorType | HoleType;

/** A type after checking succeeded: no holes, no errors. This is what the compiler sees. */
export type ValueType =
  | PrimitiveType
  | { readonly kind: 'List'; readonly element: ValueType }
  | RecordType
  | EnumType;

export const INT: PrimitiveType = { kind: 'Int' };
export const FLOAT: PrimitiveType = { kind: 'Float' };
export const TEXT: PrimitiveType = { kind: 'Text' };
export const BOOL: PrimitiveType = { kind: 'Bool' };
export const ERROR: ErrorType = { kind: 'Error' };

export function listOf(element: Type): ListType {
  return { kind: 'List', element };
}

export function newHole(origin: ListExpr): HoleType {
  return { kind: 'Hole', ref: null, origin };
}

/** Follows filled holes to the type they stand for. */
export function prune(type: Type): Type {
  let current = type;
  while (current.kind === 'Hole' && current.ref !== null) current = current.ref;
  return current;
}

export function isNumeric(type: Type): boolean {
  const t = prune(type);
  return t.kind === 'Int' || t.kind === 'Float' || t.kind === 'Error';
}

/** True when the type (or a part of it) is an open hole. */
export function hasOpenHole(type: Type): boolean {
  const t = prune(type);
  if (t.kind === 'Hole') return true;
  if (t.kind === 'List') return hasOpenHole(t.element);
  return false;
}

export function isErrorType(type: Type): boolean {
  const t = prune(type);
  if (t.kind === 'Error') return true;
  if (t.kind === 'List') return isErrorType(t.element);
  return false;
}

/** The type as written in en-US source, e.g. `List of Applicant`. */
/** A type as a diagnostic shows it: its name, and its kind for conversion help. */
export function showType(type: Type): ShownType {
  return { name: typeToString(type), kind: prune(type).kind };
}

export function typeToString(type: Type): string {
  const t = prune(type);
  switch (t.kind) {
    case 'List':
      return `List of ${typeToString(t.element)}`;
    case 'Record':
    case 'Enum':
      return t.name;
    case 'Hole':
      return 'List of ?';
    case 'Error':
      return '?';
    default:
      return t.kind;
  }
}

function occurs(hole: HoleType, type: Type): boolean {
  const t = prune(type);
  if (t === hole) return true;
  if (t.kind === 'List') return occurs(hole, t.element);
  return false;
}

function bind(hole: HoleType, type: Type): boolean {
  if (prune(type) === hole) return true;
  if (occurs(hole, type)) return false;
  hole.ref = type;
  return true;
}

/**
 * Whether a value of type `from` may be used where `to` is expected. Int widens to Float (also
 * inside lists, which are immutable); open holes on either side are filled in.
 */
export function assignable(from: Type, to: Type): boolean {
  const f = prune(from);
  const t = prune(to);
  if (f.kind === 'Error' || t.kind === 'Error') return true;
  if (f.kind === 'Hole') return bind(f, t);
  if (t.kind === 'Hole') return bind(t, f);
  switch (t.kind) {
    case 'Float':
      return f.kind === 'Float' || f.kind === 'Int';
    case 'Int':
    case 'Text':
    case 'Bool':
      return f.kind === t.kind;
    case 'List':
      return f.kind === 'List' && assignable(f.element, t.element);
    case 'Record':
    case 'Enum':
      return f.kind === t.kind && f.name === t.name;
  }
}

/**
 * The common type of two values that meet (list elements, the sides of `is`): the wider of the
 * two when one widens to the other, null when they have none.
 */
export function commonType(a: Type, b: Type): Type | null {
  const x = prune(a);
  const y = prune(b);
  if (x.kind === 'Error') return y;
  if (y.kind === 'Error') return x;
  if (x.kind === 'Hole' || y.kind === 'Hole') return assignable(x, y) ? y : null;
  if (x.kind === 'List' && y.kind === 'List') {
    const element = commonType(x.element, y.element);
    return element === null ? null : listOf(element);
  }
  if (x.kind === 'Int' && y.kind === 'Float') return y;
  if (x.kind === 'Float' && y.kind === 'Int') return x;
  return assignable(x, y) ? x : null;
}

/** Replaces every filled hole by its type; open holes and errors become Error (never compiled). */
export function resolveType(type: Type): Type {
  const t = prune(type);
  if (t.kind === 'List') {
    const element = resolveType(t.element);
    return element === t.element ? t : listOf(element);
  }
  if (t.kind === 'Hole') return ERROR;
  return t;
}
