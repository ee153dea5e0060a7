/**
 * The hot tier's entry function for one rule: validates and converts the JSON context, calls the
 * generated rule and converts its result to JSON, in one generated function (`e0`). Converting
 * inline lets the engine see the context's shapes at this entry point only and inline the checks.
 *
 * It does exactly what the templates in runtime/input-conversion.ts and output-conversion.ts do,
 * in the same order (reads of the input are observable through getters). On invalid input it
 * returns the INVALID sentinel and the caller runs the diagnosing walk. Like the rules, it holds
 * no policy text: names are `k[…]`, conversions of types it does not unroll are `k[…]` functions.
 */
import type { CheckedModule } from '../checker/checked-module.js';
import type { ValueType } from '../checker/types.js';
import { freshTemplates } from '../runtime/closure-template.js';
import { createInputConversion, INVALID } from '../runtime/input-conversion.js';
import { staticDepth } from '../runtime/json-depth.js';
import type { TypeEnvironment } from '../runtime/type-environment.js';
import { createOutputConversion } from '../runtime/output-conversion.js';
import { propertyKey } from '../runtime/property-key.js';
import { MAX_VALUE_DEPTH } from '../runtime/value-limits.js';

export interface ConstantPool {
  constant(value: unknown): string;
}

/** Up to this many variants an enum is a chain of comparisons, like the template's linear scan. */
const LINEAR_ENUM_LIMIT = 8;

function keepsInput(type: ValueType): boolean {
  if (type.kind === 'List') return keepsInput(type.element);
  return type.kind !== 'Record' && type.kind !== 'Enum';
}

function isJsonAlready(type: ValueType): boolean {
  return keepsInput(type);
}

function typeKey(type: ValueType): string {
  return type.kind === 'List' ? `[${typeKey(type.element)}]` : type.kind === 'Record' || type.kind === 'Enum' ? `${type.kind}:${type.name}` : type.kind;
}

/** Names a plain read could find on Object.prototype: the templates read those as own properties. */
function isPrototypeName(name: string): boolean {
  return name in Object.prototype;
}

export class ConversionGenerator {
  /** Generated functions: `c` input conversions, `o` output conversions. */
  private readonly functions: string[] = [];
  private readonly inputs = new Map<string, string>();
  private readonly outputs = new Map<string, string>();
  private readonly env: TypeEnvironment;
  private readonly invalid: string;

  constructor(
    private readonly pool: ConstantPool,
    checked: CheckedModule,
  ) {
    this.env = { records: checked.records, enums: checked.enums };
    this.invalid = pool.constant(INVALID);
  }

  /** Function declarations the entry functions use. */
  declarations(): string {
    return this.functions.join('\n');
  }

  /**
   * The entry function `e<index>` for a rule generated as `r<rule>` that returns JSON: context
   * in, JSON or the INVALID sentinel out. Mirrors `argumentsReader` in input-conversion.ts.
   */
  entry(
    index: number,
    rule: number,
    params: readonly { readonly name: string; readonly type: ValueType }[],
    exploded: ReadonlySet<number>,
  ): string {
    const n = params.length;
    const bad = `return ${this.invalid};`;
    const locals = params.map((_, i) => `x${i}`);
    // Exploded record parameters: checked here like their `c` function would, kept as fields.
    let next = n + 1;
    const fields = params.map((p, i) =>
      exploded.has(i) && p.type.kind === 'Record' ? this.env.records.get(p.type.name)!.fields.map((f) => ({ ...f, local: `x${next++}` })) : null,
    );
    const convert = (i: number): string[] => {
      const own = fields[i];
      if (own === null || own === undefined) return this.check(params[i]!.type, `x${i}`);
      const lines = [`if (!isObj(x${i})) ${bad}`, `if (keys(x${i}) !== ${own.length}) ${bad}`];
      for (const f of own) lines.push(`${f.local} = ${this.read(`x${i}`, f.name)};`, ...this.check(f.type, f.local));
      return lines;
    };
    const lines: string[] = [];
    lines.push(`function e${index}(x${n}) {`);
    // As the template does (input-conversion.ts): no recursion into a context nested too deeply.
    if (params.some((p) => staticDepth(p.type, this.env) > MAX_VALUE_DEPTH)) lines.push(`if (tooDeep(x${n})) ${bad}`);
    const declared = [...locals, ...fields.flatMap((f) => (f === null ? [] : f.map((x) => x.local)))];
    if (declared.length > 0) lines.push(`let ${declared.join(', ')};`);
    lines.push(`if (isArr(x${n})) {`, `if (x${n}.length !== ${n}) ${bad}`);
    params.forEach((_, i) => lines.push(`x${i} = x${n}[${i}];`, ...convert(i)));
    lines.push('} else {', `if (!isObj(x${n})) ${bad}`, `if (keys(x${n}) !== ${n}) ${bad}`);
    params.forEach((p, i) => lines.push(`x${i} = ${this.read(`x${n}`, p.name)};`, ...convert(i)));
    lines.push('}');
    const args = params.map((_, i) => fields[i]?.map((f) => f.local).join(', ') ?? `x${i}`);
    lines.push(`return r${rule}(${args.join(', ')});`, '}');
    return lines.join('\n');
  }

  private read(object: string, name: string): string {
    const key = this.pool.constant(propertyKey(name));
    return isPrototypeName(name) ? `own(${object}, ${key})` : `${object}[${key}]`;
  }

  /** Statements that leave the converted value in `local` or return the sentinel. */
  private check(type: ValueType, local: string): string[] {
    const bad = `return ${this.invalid};`;
    switch (type.kind) {
      case 'Int':
        return [`if (!isInt(${local})) ${bad}`];
      case 'Float':
        return [`if (!isFloat(${local})) ${bad}`];
      case 'Text':
        return [`if (!isText(${local})) ${bad}`];
      case 'Bool':
        return [`if (!isBool(${local})) ${bad}`];
      default:
        return [`${local} = ${this.input(type)}(${local});`, `if (${local} === ${this.invalid}) ${bad}`];
    }
  }

  /** The name of a function converting input of a non-scalar type. */
  private input(type: ValueType): string {
    const key = typeKey(type);
    const known = this.inputs.get(key);
    if (known !== undefined) return known;
    if (type.kind === 'Enum' && this.env.enums.get(type.name)!.variants.length > LINEAR_ENUM_LIMIT) {
      // A Map lookup, as in the template: reuse a fresh copy of it.
      const name = this.pool.constant(createInputConversion(type, this.env, freshTemplates));
      this.inputs.set(key, name);
      return name;
    }
    const name = `c${this.inputs.size}`;
    this.inputs.set(key, name);
    const bad = `return ${this.invalid};`;
    const lines = [`function ${name}(x0) {`];
    switch (type.kind) {
      case 'Enum': {
        const variants = this.env.enums.get(type.name)!.variants;
        variants.forEach((v, i) => lines.push(`if (x0 === ${this.pool.constant(propertyKey(v))}) return ${i};`));
        lines.push(bad);
        break;
      }
      case 'List':
        lines.push(`if (!isArr(x0)) ${bad}`);
        if (keepsInput(type.element)) {
          lines.push('for (let x1 = 0; x1 < x0.length; x1++) {', 'let x2 = x0[x1];', ...this.check(type.element, 'x2'), '}', 'return x0;');
        } else {
          lines.push('const x3 = [];', 'for (let x1 = 0; x1 < x0.length; x1++) {', 'let x2 = x0[x1];', ...this.check(type.element, 'x2'), 'x3.push(x2);', '}', 'return x3;');
        }
        break;
      case 'Record': {
        const fields = this.env.records.get(type.name)!.fields;
        const locals = fields.map((_, i) => `x${i + 1}`);
        lines.push(`if (!isObj(x0)) ${bad}`, `if (keys(x0) !== ${fields.length}) ${bad}`);
        if (fields.length > 0) lines.push(`let ${locals.join(', ')};`);
        fields.forEach((f, i) => {
          lines.push(`${locals[i]} = ${this.read('x0', f.name)};`, ...this.check(f.type, locals[i]!));
        });
        lines.push(`return [${locals.join(', ')}];`);
        break;
      }
      default:
        throw new Error(`no input function for ${type.kind}`);
    }
    lines.push('}');
    this.functions.push(lines.join('\n'));
    return name;
  }

  /** An expression converting the value of `expr` to JSON. */
  output(type: ValueType, expr: string): string {
    if (isJsonAlready(type)) return expr;
    if (type.kind === 'Enum') return `${this.pool.constant(this.env.enums.get(type.name)!.variants)}[${expr}]`;
    return `${this.outputFunction(type)}(${expr})`;
  }

  private outputFunction(type: ValueType): string {
    const key = typeKey(type);
    const known = this.outputs.get(key);
    if (known !== undefined) return known;
    if (type.kind === 'Record' && this.env.records.get(type.name)!.fields.some((f) => f.name === '__proto__')) {
      // Needs defineProperty: reuse a fresh copy of the template.
      const name = this.pool.constant(createOutputConversion(type, this.env, freshTemplates));
      this.outputs.set(key, name);
      return name;
    }
    const name = `o${this.outputs.size}`;
    this.outputs.set(key, name);
    const lines = [`function ${name}(x0) {`];
    switch (type.kind) {
      case 'List':
        lines.push(
          'const x1 = [];',
          `for (let x2 = 0; x2 < x0.length; x2++) x1.push(${this.output(type.element, 'x0[x2]')});`,
          'return x1;',
        );
        break;
      case 'Record': {
        const fields = this.env.records.get(type.name)!.fields;
        lines.push('const x1 = {};');
        fields.forEach((f, i) => lines.push(`x1[${this.pool.constant(propertyKey(f.name))}] = ${this.output(f.type, `x0[${i}]`)};`));
        lines.push('return x1;');
        break;
      }
      default:
        throw new Error(`no output function for ${type.kind}`);
    }
    lines.push('}');
    this.functions.push(lines.join('\n'));
    return name;
  }
}
