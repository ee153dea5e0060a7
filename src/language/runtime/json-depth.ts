/**
 * How deeply lists and records nest, in a type and in a JSON value. Conversions recurse once per
 * level, so values of a type that can nest deeper than MAX_VALUE_DEPTH (a record containing a
 * list of itself) are checked first, without recursion, to keep the engine's stack safe.
 */
import type { ValueType } from '../checker/types.js';
import type { TypeEnvironment } from './type-environment.js';

/**
 * How deeply lists and records nest in the type; Infinity when a record contains itself. Each
 * record is measured once (`known`), so types that share records many times cost no more.
 */
export function staticDepth(type: ValueType, env: TypeEnvironment, known: Map<string, number> = new Map()): number {
  switch (type.kind) {
    case 'List':
      return 1 + staticDepth(type.element, env, known);
    case 'Record': {
      const done = known.get(type.name);
      if (done !== undefined) return done;
      // While a record is being measured, meeting it again means it contains itself.
      known.set(type.name, Infinity);
      const fields = env.records.get(type.name)!.fields;
      const depth = 1 + Math.max(0, ...fields.map((f) => staticDepth(f.type, env, known)));
      known.set(type.name, depth);
      return depth;
    }
    default:
      return 0;
  }
}

/** Whether arrays and objects nest more than `limit` levels in a JSON value; iterative. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()! + 1;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        values.push(v[i]);
        depths.push(depth);
      }
    } else {
      for (const key in v) {
        values.push((v as Record<string, unknown>)[key]);
        depths.push(depth);
      }
    }
  }
  return false;
}
