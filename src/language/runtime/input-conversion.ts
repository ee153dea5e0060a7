/**
 * Context input (JSON) → internal values, strictly (LANGUAGE.md §7). Internally a record is an
 * array of its field values in declaration order and an enum value is its variant's index.
 *
 * Two passes: a fast conversion that only says "invalid", and, when it does, a diagnosing walk
 * that names every problem by path. The common, valid case pays for no path strings.
 */
import type { EnumInfo, RecordInfo } from '../checker/checked-module.js';
import { didYouMean } from '../checker/suggest.js';
import { typeToString, type ValueType } from '../checker/types.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';

export const INVALID: unique symbol = Symbol('invalid input');
export type Converted = unknown;
export type InputConversion = (value: unknown) => Converted | typeof INVALID;

export interface TypeEnvironment {
  readonly records: ReadonlyMap<string, RecordInfo>;
  readonly enums: ReadonlyMap<string, EnumInfo>;
}

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

export function createInputConversion(type: ValueType, env: TypeEnvironment): InputConversion {
  switch (type.kind) {
    case 'Int':
      return convertInt;
    case 'Float':
      return convertFloat;
    case 'Text':
      return convertText;
    case 'Bool':
      return convertBool;
    case 'Enum':
      return enumConversion(env.enums.get(type.name)!);
    case 'List': {
      const element = type.element;
      let convert: InputConversion | null = null;
      if (keepsInput(element)) {
        return (v) => {
          if (!Array.isArray(v)) return INVALID;
          convert ??= createInputConversion(element, env);
          for (let i = 0; i < v.length; i++) if (convert(v[i]) === INVALID) return INVALID;
          return v;
        };
      }
      return (v) => {
        if (!Array.isArray(v)) return INVALID;
        convert ??= createInputConversion(element, env);
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          const c = convert(v[i]);
          if (c === INVALID) return INVALID;
          out[i] = c;
        }
        return out;
      };
    }
    case 'Record':
      return recordConversion(env.records.get(type.name)!, env);
  }
}

/** Up to this many variants, a linear scan beats a Map lookup. */
const LINEAR_ENUM_LIMIT = 8;

function enumConversion(enumInfo: EnumInfo): InputConversion {
  const variants = enumInfo.variants;
  if (variants.length > LINEAR_ENUM_LIMIT) {
    const index = enumInfo.variantIndex;
    return (v) => {
      if (typeof v !== 'string') return INVALID;
      const i = index.get(v);
      return i === undefined ? INVALID : i;
    };
  }
  return (v) => {
    for (let i = 0; i < variants.length; i++) if (variants[i] === v) return i;
    return INVALID;
  };
}

/**
 * The first fields are read through separate, unrolled property reads: each read site then
 * sees one field name per record type, which keeps the engine's property caches effective.
 */
const UNROLLED_FIELDS = 6;

function recordConversion(record: RecordInfo, env: TypeEnvironment): InputConversion {
  const names = record.fields.map((f) => f.name);
  const count = names.length;
  let converts: InputConversion[] | null = null;
  const init = (): InputConversion[] => (converts = record.fields.map((f) => createInputConversion(f.type, env)));

  if (count === 0 || count > UNROLLED_FIELDS || names.some(isPrototypeName)) {
    const ownOnly = names.some(isPrototypeName);
    return (v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return INVALID;
      if (countKeys(v) !== count) return INVALID;
      const c = converts ?? init();
      const out: unknown[] = [];
      for (let i = 0; i < count; i++) {
        const name = names[i]!;
        const raw = ownOnly ? readOwn(v, name) : (v as Record<string, unknown>)[name];
        if (raw === undefined) return INVALID;
        const x = c[i]!(raw);
        if (x === INVALID) return INVALID;
        out.push(x);
      }
      return out;
    };
  }
  const [n0, n1, n2, n3, n4, n5] = names as [string, string, string, string, string, string];
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return INVALID;
    if (countKeys(v) !== count) return INVALID;
    const c = converts ?? init();
    const o = v as Record<string, unknown>;
    // Exact-size literals: one allocation, densely packed.
    let x0 = o[n0];
    if (x0 === undefined || (x0 = c[0]!(x0)) === INVALID) return INVALID;
    if (count === 1) return [x0];
    let x1 = o[n1];
    if (x1 === undefined || (x1 = c[1]!(x1)) === INVALID) return INVALID;
    if (count === 2) return [x0, x1];
    let x2 = o[n2];
    if (x2 === undefined || (x2 = c[2]!(x2)) === INVALID) return INVALID;
    if (count === 3) return [x0, x1, x2];
    let x3 = o[n3];
    if (x3 === undefined || (x3 = c[3]!(x3)) === INVALID) return INVALID;
    if (count === 4) return [x0, x1, x2, x3];
    let x4 = o[n4];
    if (x4 === undefined || (x4 = c[4]!(x4)) === INVALID) return INVALID;
    if (count === 5) return [x0, x1, x2, x3, x4];
    let x5 = o[n5];
    if (x5 === undefined || (x5 = c[5]!(x5)) === INVALID) return INVALID;
    return [x0, x1, x2, x3, x4, x5];
  };
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

  add(code: DiagnosticCode, message: string): void {
    if (this.diagnostics.length < MAX_INPUT_DIAGNOSTICS) this.diagnostics.push({ code, severity: 'error', message, span: null });
  }

  get full(): boolean {
    return this.diagnostics.length >= MAX_INPUT_DIAGNOSTICS;
  }
}

function diagnose(type: ValueType, value: unknown, path: string, env: TypeEnvironment, problems: InputProblems): void {
  if (problems.full) return;
  const wrongType = (): void =>
    problems.add('PL5004', `\`${path}\` expects ${describeType(type, env)}, got ${describeJsonValue(value)}`);
  switch (type.kind) {
    case 'Int':
      if (typeof value !== 'number') wrongType();
      else if (!Number.isSafeInteger(value)) {
        problems.add('PL5005', `\`${path}\` expects Int, got number \`${String(value)}\`, which is not an integer in the safe range ±(2^53−1)`);
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
        problems.add(
          'PL5006',
          `\`${path}\` expects ${describeType(type, env)}, got ${describeJsonValue(value)}${didYouMean(value, enumInfo.variants)}`,
        );
      }
      return;
    }
    case 'List':
      if (!Array.isArray(value)) return wrongType();
      for (let i = 0; i < value.length && !problems.full; i++) diagnose(type.element, value[i], `${path}[${i}]`, env, problems);
      return;
    case 'Record': {
      if (!isPlainObject(value)) return wrongType();
      const record = env.records.get(type.name)!;
      for (const field of record.fields) {
        const raw = isPrototypeName(field.name) ? readOwn(value, field.name) : value[field.name];
        const here = fieldPath(path, field.name);
        if (raw === undefined) problems.add('PL5002', `\`${here}\` is missing (expects ${describeType(field.type, env)})`);
        else diagnose(field.type, raw, here, env, problems);
      }
      for (const key in value) {
        if (!record.fieldIndex.has(key)) {
          problems.add(
            'PL5003',
            `\`${fieldPath(path, key)}\` is not a field of \`${record.name}\`${didYouMean(key, record.fieldIndex.keys())}`,
          );
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

/**
 * The context of an evaluation: an object keyed by parameter name, or an array in parameter order.
 */
export function createArgumentsConversion(
  ruleName: string,
  params: readonly { readonly name: string; readonly type: ValueType }[],
  env: TypeEnvironment,
): ArgumentsConversion {
  const names = params.map((p) => p.name);
  const converts = params.map((p) => createInputConversion(p.type, env));
  const count = params.length;
  const ownOnly = names.some(isPrototypeName);
  const [p0, p1] = names as [string, string];

  return {
    convert(context, target) {
      if (Array.isArray(context)) {
        if (context.length !== count) return false;
        for (let i = 0; i < count; i++) {
          const c = converts[i]!(context[i]);
          if (c === INVALID) return false;
          target[i] = c;
        }
        return true;
      }
      if (typeof context !== 'object' || context === null) return false;
      if (countKeys(context) !== count) return false;
      if (!ownOnly && count <= 2) {
        // Unrolled for the same reason as record fields.
        const o = context as Record<string, unknown>;
        if (count === 0) return true;
        let x = o[p0];
        if (x === undefined || (x = converts[0]!(x)) === INVALID) return false;
        target[0] = x;
        if (count === 1) return true;
        x = o[p1];
        if (x === undefined || (x = converts[1]!(x)) === INVALID) return false;
        target[1] = x;
        return true;
      }
      for (let i = 0; i < count; i++) {
        const name = names[i]!;
        const raw = ownOnly ? readOwn(context, name) : (context as Record<string, unknown>)[name];
        if (raw === undefined) return false;
        const c = converts[i]!(raw);
        if (c === INVALID) return false;
        target[i] = c;
      }
      return true;
    },

    diagnose(context) {
      const problems = new InputProblems();
      const listed = names.map((n) => `\`${n}\``).join(', ');
      if (Array.isArray(context)) {
        if (context.length !== count) {
          problems.add(
            'PL5007',
            `\`${ruleName}\` takes ${count} argument${count === 1 ? '' : 's'}${count > 0 ? ` (${listed})` : ''}, got an array of ${context.length}`,
          );
        } else {
          for (let i = 0; i < count; i++) diagnose(params[i]!.type, context[i], names[i]!, env, problems);
        }
      } else if (isPlainObject(context)) {
        for (const param of params) {
          const raw = isPrototypeName(param.name) ? readOwn(context, param.name) : context[param.name];
          if (raw === undefined) problems.add('PL5002', `\`${param.name}\` is missing (expects ${describeType(param.type, env)})`);
          else diagnose(param.type, raw, param.name, env, problems);
        }
        for (const key in context) {
          if (!names.includes(key)) {
            problems.add('PL5003', `\`${key}\` is not a parameter of \`${ruleName}\`${didYouMean(key, names)}`);
          }
        }
      } else {
        problems.add(
          'PL5001',
          `context must be a JSON object keyed by parameter name or an array in parameter order, got ${describeJsonValue(context)}`,
        );
      }
      if (problems.diagnostics.length === 0) {
        throw new Error(`input of \`${ruleName}\` was rejected but no problem was found`);
      }
      return problems.diagnostics;
    },
  };
}
