/**
 * Context input (JSON) → internal values, strictly (docs/language.md §7). Internally a record is an
 * array of its field values in declaration order and an enum value is its variant's index.
 *
 * Two passes: a fast conversion that only says "invalid", and, when it does, a diagnosing walk
 * that names every problem by path. The common, valid case pays for no path strings.
 */
import { typeToString, type ValueType } from '../checker/types.js';
import {
  ContextNotObject,
  InputTooDeep,
  MissingValue,
  placeDiagnostic,
  UnexpectedKey,
  UnknownVariantInput,
  UnsafeIntegerInput,
  WrongJsonType,
  WrongPositionalCount,
  type Diagnostic,
  type DiagnosticText,
} from '../diagnostics/index.js';
import { sharedTemplates, type Instantiate } from './closure-template.js';
import { nestedDeeperThan, staticDepth } from './json-depth.js';
import { propertyKey } from './property-key.js';
import type { TypeEnvironment } from './type-environment.js';
import { MAX_VALUE_DEPTH } from './value-limits.js';

export const INVALID: unique symbol = Symbol('invalid input');
export type Converted = unknown;
export type InputConversion = (value: unknown) => Converted | typeof INVALID;


/** At most this many input problems are reported for one evaluation. */
const MAX_INPUT_DIAGNOSTICS = 20;

/** Names a plain `obj[name]` read could find on Object.prototype; read those as own properties only. */
function isPrototypeName(name: string): boolean {
  return name in Object.prototype;
}

function readOwn(obj: object, name: string): unknown {
  return Object.getOwnPropertyDescriptor(obj, name)?.value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function countKeys(obj: object): number {
  let count = 0;
  for (const _ in obj) count++;
  return count;
}

const convertInt: InputConversion = (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : INVALID);
const convertFloat: InputConversion = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : INVALID);
const convertText: InputConversion = (v) => (typeof v === 'string' ? v : INVALID);
const convertBool: InputConversion = (v) => (typeof v === 'boolean' ? v : INVALID);

/** Whether a valid input of this type is used as is (validated, not copied). */
function keepsInput(type: ValueType): boolean {
  if (type.kind === 'List') return keepsInput(type.element);
  return type.kind !== 'Record' && type.kind !== 'Enum';
}

type Invalid = typeof INVALID;
type CountKeys = typeof countKeys;

// ---------- templates (see closure-template.ts): bodies refer only to their parameters ----------

const enumLinear =
  (variants: readonly string[], invalid: Invalid): InputConversion =>
  (v) => {
    for (let i = 0; i < variants.length; i++) if (variants[i] === v) return i;
    return invalid;
  };

const enumMap =
  (index: ReadonlyMap<string, number>, invalid: Invalid): InputConversion =>
  (v) => {
    if (typeof v !== 'string') return invalid;
    const i = index.get(v);
    return i === undefined ? invalid : i;
  };

/** A list whose elements are used as they are: validate only. `element` is resolved on first use. */
const listKept =
  (element: () => InputConversion, invalid: Invalid): InputConversion =>
  (v) => {
    if (!Array.isArray(v)) return invalid;
    const convert = element();
    for (let i = 0; i < v.length; i++) if (convert(v[i]) === invalid) return invalid;
    return v;
  };

const listConverted =
  (element: () => InputConversion, invalid: Invalid): InputConversion =>
  (v) => {
    if (!Array.isArray(v)) return invalid;
    const convert = element();
    const out: unknown[] = [];
    for (let i = 0; i < v.length; i++) {
      const c = convert(v[i]);
      if (c === invalid) return invalid;
      out.push(c);
    }
    return out;
  };

/**
 * The first fields are read through separate, unrolled property reads: each read site then sees
 * one field name per record type, which keeps the engine's property caches effective. The result
 * is an exact-size array literal: one allocation, densely packed.
 */
const recordUnrolled =
  (count: number, names: readonly string[], c: readonly InputConversion[], invalid: Invalid, keys: CountKeys): InputConversion =>
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return invalid;
    if (keys(v) !== count) return invalid;
    const o = v as Record<string, unknown>;
    let x0 = o[names[0]!];
    if (x0 === undefined || (x0 = c[0]!(x0)) === invalid) return invalid;
    if (count === 1) return [x0];
    let x1 = o[names[1]!];
    if (x1 === undefined || (x1 = c[1]!(x1)) === invalid) return invalid;
    if (count === 2) return [x0, x1];
    let x2 = o[names[2]!];
    if (x2 === undefined || (x2 = c[2]!(x2)) === invalid) return invalid;
    if (count === 3) return [x0, x1, x2];
    let x3 = o[names[3]!];
    if (x3 === undefined || (x3 = c[3]!(x3)) === invalid) return invalid;
    if (count === 4) return [x0, x1, x2, x3];
    let x4 = o[names[4]!];
    if (x4 === undefined || (x4 = c[4]!(x4)) === invalid) return invalid;
    if (count === 5) return [x0, x1, x2, x3, x4];
    let x5 = o[names[5]!];
    if (x5 === undefined || (x5 = c[5]!(x5)) === invalid) return invalid;
    return [x0, x1, x2, x3, x4, x5];
  };

const recordLooped =
  (count: number, names: readonly string[], c: readonly InputConversion[], invalid: Invalid, keys: CountKeys, read: typeof readField): InputConversion =>
  (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return invalid;
    if (keys(v) !== count) return invalid;
    const out: unknown[] = [];
    for (let i = 0; i < count; i++) {
      const raw = read(v, names[i]!);
      if (raw === undefined) return invalid;
      const x = c[i]!(raw);
      if (x === invalid) return invalid;
      out.push(x);
    }
    return out;
  };

/** A field read that never finds Object.prototype's members (`constructor`, `__proto__`…). */
function readField(obj: object, name: string): unknown {
  return isPrototypeName(name) ? readOwn(obj, name) : (obj as Record<string, unknown>)[name];
}

/** Up to this many variants, a linear scan beats a Map lookup. */
const LINEAR_ENUM_LIMIT = 8;
const UNROLLED_FIELDS = 6;

/** Converts JSON input of a type; `make` chooses shared templates or fresh copies. */
export function createInputConversion(type: ValueType, env: TypeEnvironment, make: Instantiate = sharedTemplates): InputConversion {
  switch (type.kind) {
    case 'Int':
      return convertInt;
    case 'Float':
      return convertFloat;
    case 'Text':
      return convertText;
    case 'Bool':
      return convertBool;
    case 'Enum': {
      const enumInfo = env.enums.get(type.name)!;
      return enumInfo.variants.length > LINEAR_ENUM_LIMIT
        ? make(enumMap)(enumInfo.variantIndex, INVALID)
        : make(enumLinear)(enumInfo.variants.map(propertyKey), INVALID);
    }
    case 'List': {
      // Resolved on first use: a record may contain a list of itself.
      let convert: InputConversion | null = null;
      const element = (): InputConversion => (convert ??= createInputConversion(type.element, env, make));
      return keepsInput(type.element) ? make(listKept)(element, INVALID) : make(listConverted)(element, INVALID);
    }
    case 'Record': {
      const record = env.records.get(type.name)!;
      const names = record.fields.map((f) => propertyKey(f.name));
      const converts = record.fields.map((f) => createInputConversion(f.type, env, make));
      if (names.length === 0 || names.length > UNROLLED_FIELDS || names.some(isPrototypeName)) {
        return make(recordLooped)(names.length, names, converts, INVALID, countKeys, readField);
      }
      return make(recordUnrolled)(names.length, names, converts, INVALID, countKeys);
    }
  }
}

// ---------- diagnosis ----------

function quoteText(text: string): string {
  const json = JSON.stringify(text);
  return json.length > 42 ? `${json.slice(0, 40)}…"` : json;
}

/** What a JSON value is, for messages: string `"x"`, number `1.5`, an object… */
export function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return `string \`${quoteText(value)}\``;
    case 'number':
      return `number \`${String(value)}\``;
    case 'boolean':
      return `boolean \`${String(value)}\``;
    case 'object':
      return 'an object';
    case 'undefined':
      return 'nothing';
    default:
      return `a ${typeof value} value (not JSON)`;
  }
}

function describeType(type: ValueType, env: TypeEnvironment): string {
  if (type.kind === 'Enum') {
    const variants = env.enums.get(type.name)!.variants.map((v) => `\`${v}\``).join(', ');
    return `${type.name} (one of ${variants})`;
  }
  return typeToString(type);
}

function fieldPath(base: string, name: string): string {
  return /^[\p{L}_][\p{L}\p{N}_]*$/u.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`;
}

class InputProblems {
  readonly diagnostics: Diagnostic[] = [];

  add(text: DiagnosticText): void {
    if (this.diagnostics.length < MAX_INPUT_DIAGNOSTICS) this.diagnostics.push(placeDiagnostic(text, null));
  }

  get full(): boolean {
    return this.diagnostics.length >= MAX_INPUT_DIAGNOSTICS;
  }
}

/** `depth` counts the lists and records around `value`; deeper ones are reported, not walked. */
function diagnose(type: ValueType, value: unknown, path: string, env: TypeEnvironment, problems: InputProblems, depth = 0): void {
  if (problems.full) return;
  if ((type.kind === 'List' || type.kind === 'Record') && depth >= MAX_VALUE_DEPTH && (Array.isArray(value) || isPlainObject(value))) {
    problems.add(InputTooDeep(path, MAX_VALUE_DEPTH));
    return;
  }
  const wrongType = (): void => problems.add(WrongJsonType(path, describeType(type, env), describeJsonValue(value)));
  switch (type.kind) {
    case 'Int':
      if (typeof value !== 'number') wrongType();
      else if (!Number.isSafeInteger(value)) {
        problems.add(UnsafeIntegerInput(path, String(value)));
      }
      return;
    case 'Float':
      if (typeof value !== 'number' || !Number.isFinite(value)) wrongType();
      return;
    case 'Text':
      if (typeof value !== 'string') wrongType();
      return;
    case 'Bool':
      if (typeof value !== 'boolean') wrongType();
      return;
    case 'Enum': {
      if (typeof value !== 'string') return wrongType();
      const enumInfo = env.enums.get(type.name)!;
      if (!enumInfo.variantIndex.has(value)) {
        problems.add(UnknownVariantInput(path, describeType(type, env), describeJsonValue(value), value, enumInfo.variants));
      }
      return;
    }
    case 'List':
      if (!Array.isArray(value)) return wrongType();
      for (let i = 0; i < value.length && !problems.full; i++) diagnose(type.element, value[i], `${path}[${i}]`, env, problems, depth + 1);
      return;
    case 'Record': {
      if (!isPlainObject(value)) return wrongType();
      const record = env.records.get(type.name)!;
      for (const field of record.fields) {
        const raw = isPrototypeName(field.name) ? readOwn(value, field.name) : value[field.name];
        const here = fieldPath(path, field.name);
        if (raw === undefined) problems.add(MissingValue(here, describeType(field.type, env)));
        else diagnose(field.type, raw, here, env, problems, depth + 1);
      }
      for (const key in value) {
        if (!record.fieldIndex.has(key)) {
          problems.add(UnexpectedKey.field(fieldPath(path, key), key, record.name, record.fieldIndex.keys()));
        }
      }
      return;
    }
  }
}

export interface ArgumentsConversion {
  /** Converts the context into `target[0..n-1]`; false when anything is wrong. */
  convert(context: unknown, target: unknown[]): boolean;
  /** Every problem of an invalid context, by path (PL5xxx, no span). */
  diagnose(context: unknown): Diagnostic[];
}

/** Reads the context into `target[0..n-1]`; false when anything is wrong. Template, see above. */
type ReadArguments = (context: unknown, target: unknown[]) => boolean;

const argumentsReader =
  (count: number, names: readonly string[], c: readonly InputConversion[], invalid: Invalid, keys: CountKeys, ownOnly: boolean, read: typeof readField): ReadArguments =>
  (context, target) => {
    if (Array.isArray(context)) {
      if (context.length !== count) return false;
      for (let i = 0; i < count; i++) {
        const x = c[i]!(context[i]);
        if (x === invalid) return false;
        target[i] = x;
      }
      return true;
    }
    if (typeof context !== 'object' || context === null) return false;
    if (keys(context) !== count) return false;
    if (count === 0) return true;
    const o = context as Record<string, unknown>;
    let x: unknown;
    let start = 0;
    if (!ownOnly) {
      // Unrolled for the first parameters, like record fields above.
      x = o[names[0]!];
      if (x === undefined || (x = c[0]!(x)) === invalid) return false;
      target[0] = x;
      if (count === 1) return true;
      x = o[names[1]!];
      if (x === undefined || (x = c[1]!(x)) === invalid) return false;
      target[1] = x;
      if (count === 2) return true;
      x = o[names[2]!];
      if (x === undefined || (x = c[2]!(x)) === invalid) return false;
      target[2] = x;
      if (count === 3) return true;
      start = 3;
    }
    for (let i = start; i < count; i++) {
      x = read(o, names[i]!);
      if (x === undefined || (x = c[i]!(x)) === invalid) return false;
      target[i] = x;
    }
    return true;
  };

/**
 * The context of an evaluation: an object keyed by parameter name, or an array in parameter order.
 */
export function createArgumentsConversion(
  ruleName: string,
  params: readonly { readonly name: string; readonly type: ValueType }[],
  env: TypeEnvironment,
  make: Instantiate = sharedTemplates,
): ArgumentsConversion {
  const names = params.map((p) => propertyKey(p.name));
  const count = params.length;
  const read = make(argumentsReader)(
    count,
    names,
    params.map((p) => createInputConversion(p.type, env, make)),
    INVALID,
    countKeys,
    names.some(isPrototypeName),
    readField,
  );
  // Conversions recurse per level: a value of a type that can nest deeper than the bound is
  // checked without recursion first (the context object or array is one more level).
  const deep = params.some((p) => staticDepth(p.type, env) > MAX_VALUE_DEPTH);
  const convert: ReadArguments = deep ? (context, target) => !nestedDeeperThan(context, MAX_VALUE_DEPTH + 1) && read(context, target) : read;

  return {
    convert,

    diagnose(context) {
      const problems = new InputProblems();
      if (Array.isArray(context)) {
        if (context.length !== count) {
          problems.add(WrongPositionalCount(ruleName, names, context.length));
        } else {
          for (let i = 0; i < count; i++) diagnose(params[i]!.type, context[i], names[i]!, env, problems);
        }
      } else if (isPlainObject(context)) {
        for (const param of params) {
          const raw = isPrototypeName(param.name) ? readOwn(context, param.name) : context[param.name];
          if (raw === undefined) problems.add(MissingValue(param.name, describeType(param.type, env)));
          else diagnose(param.type, raw, param.name, env, problems);
        }
        for (const key in context) {
          if (!names.includes(key)) {
            problems.add(UnexpectedKey.parameter(key, ruleName, names));
          }
        }
      } else {
        problems.add(ContextNotObject(describeJsonValue(context)));
      }
      if (problems.diagnostics.length === 0) {
        throw new Error(`input of \`${ruleName}\` was rejected but no problem was found`);
      }
      return problems.diagnostics;
    },
  };
}
