/**
 * `is` / `is not` on values of one static type: scalars (numbers, Text, Bool, enum indices)
 * compare with `===`; lists and records compare structurally, element by element.
 */
import type { RecordInfo } from '../checker/checked-module.js';
import type { ValueType } from '../checker/types.js';

export type Equality = (a: unknown, b: unknown) => boolean;

export function isScalar(type: ValueType): boolean {
  return type.kind !== 'List' && type.kind !== 'Record';
}

const strictEquals: Equality = (a, b) => a === b;

export function createEquality(type: ValueType, records: ReadonlyMap<string, RecordInfo>): Equality {
  if (type.kind === 'List') {
    const element = type.element;
    if (isScalar(element)) {
      return (a, b) => {
        const x = a as unknown[];
        const y = b as unknown[];
        if (x.length !== y.length) return false;
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
        return true;
      };
    }
    // Built lazily: a record may contain a list of itself.
    let inner: Equality | null = null;
    return (a, b) => {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      inner ??= createEquality(element, records);
      for (let i = 0; i < x.length; i++) if (!inner(x[i], y[i])) return false;
      return true;
    };
  }
  if (type.kind === 'Record') {
    const record = records.get(type.name)!;
    let fields: Equality[] | null = null;
    return (a, b) => {
      if (a === b) return true;
      fields ??= record.fields.map((f) => (isScalar(f.type) ? strictEquals : createEquality(f.type, records)));
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < fields.length; i++) if (!fields[i]!(x[i], y[i])) return false;
      return true;
    };
  }
  return strictEquals;
}
