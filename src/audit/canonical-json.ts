// The rule's own file, not the kernel's index: verification threads load this, and the index brings zod (half a thread's start).
import { hasLoneSurrogate } from '../kernel/well-formed-text.js';

/**
 * A value without an RFC 8785 form. `at` locates it from the root (`$`, `$.list[2]`, `$.a.b`);
 * `problem` says what is wrong with it ("contains a lone surrogate", ...). The message is both.
 */
export class NoCanonicalFormError extends TypeError {
  override readonly name = 'NoCanonicalFormError';
  constructor(
    readonly at: string,
    readonly problem: string,
  ) {
    super(`\`${at}\` ${problem}`);
  }
}

/**
 * Thrown inside the walk (a plain object: no stack trace is taken); each container on the way back
 * up adds its step, and canonicalJson turns it into a NoCanonicalFormError. So the location costs
 * nothing unless a value is refused.
 */
class Refusal {
  /** Steps from the value up to the root: `[2]`, `.list`. */
  readonly steps: string[] = [];
  constructor(readonly problem: string) {}
}

/** One call's walk. */
interface Walk {
  /** The containers being walked, to refuse a cycle. */
  readonly ancestors: object[];
  /** An object to be put in order has a member named like an array index (see canonicalObject). */
  indexNames: boolean;
}

/** Assigns as a data member: `copy.__proto__ = …` would set the prototype instead. */
function setMember(object: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });
  else object[name] = value;
}

/**
 * Sorts names by UTF-16 code units in place. Objects mostly have a few members, and for those an
 * insertion sort takes a third of the time of the default sort (which compares through toString).
 */
function sortNames(names: string[]): void {
  if (names.length > 16) {
    names.sort();
    return;
  }
  for (let i = 1; i < names.length; i += 1) {
    const name = names[i]!;
    let j = i - 1;
    for (; j >= 0 && names[j]! > name; j -= 1) names[j + 1] = names[j]!;
    names[j + 1] = name;
  }
}

function canonicalArray(list: readonly unknown[], walk: Walk): readonly unknown[] {
  let copy: unknown[] | undefined;
  let index = 0;
  try {
    for (; index < list.length; index += 1) {
      const item = list[index];
      // JSON (and `canonicalize`) would write null, another value (a hole reads as undefined too).
      if (item === undefined) throw new Refusal('is undefined');
      const canonical = canonicalValue(item, walk);
      if (canonical !== item) {
        copy ??= list.slice();
        copy[index] = canonical;
      }
    }
  } catch (error) {
    if (error instanceof Refusal) error.steps.push(`[${index}]`);
    throw error;
  }
  return copy ?? list;
}

function canonicalObject(object: Record<string, unknown>, walk: Walk): Record<string, unknown> {
  const proto = Object.getPrototypeOf(object) as unknown;
  if (proto !== Object.prototype && proto !== null) throw new Refusal('must be a plain object, array or JSON scalar');
  const names = Object.keys(object);
  // Members in the order of the UTF-16 code units of their names (what `>` compares, as sortNames
  // does); an object already in that order (the audit record is) is kept as it is.
  let sorted = true;
  for (let i = 0; i < names.length; i += 1) {
    if (hasLoneSurrogate(names[i]!)) throw new Refusal('has a key that contains a lone surrogate');
    if (i > 0 && names[i - 1]! > names[i]!) sorted = false;
  }
  // An object enumerates array-index names first, in numeric order, whatever order they were added
  // in: a sorted copy keeps them there. They come first in Object.keys, so the first name finds them.
  if (!sorted && /^[0-9]/.test(names[0]!)) walk.indexNames = true;
  let copy: Record<string, unknown> | undefined;
  let name = '';
  try {
    if (sorted) {
      for (name of names) {
        const item = object[name];
        // An absent optional member is simply not there, as in JSON and `canonicalize`.
        if (item === undefined) continue;
        const canonical = canonicalValue(item, walk);
        if (canonical !== item) {
          copy ??= { ...object };
          setMember(copy, name, canonical);
        }
      }
    } else {
      sortNames(names);
      copy = {};
      for (name of names) {
        const item = object[name];
        if (item !== undefined) setMember(copy, name, canonicalValue(item, walk));
      }
    }
  } catch (error) {
    if (error instanceof Refusal) error.steps.push(`.${name}`);
    throw error;
  }
  return copy ?? object;
}

/** The value, or a copy with its objects' members in canonical order; refuses what has no form. */
function canonicalValue(value: unknown, walk: Walk): unknown {
  switch (typeof value) {
    case 'string':
      if (hasLoneSurrogate(value)) throw new Refusal('contains a lone surrogate');
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new Refusal('must be a finite number');
      return value;
    case 'boolean':
      return value;
    case 'object': {
      if (value === null) return value;
      if (walk.ancestors.includes(value)) throw new Refusal('contains itself');
      walk.ancestors.push(value);
      const canonical = Array.isArray(value) ? canonicalArray(value, walk) : canonicalObject(value as Record<string, unknown>, walk);
      walk.ancestors.pop();
      return canonical;
    }
    default:
      throw new Refusal(`is not a JSON value (${typeof value})`);
  }
}

/** Writes an already canonical value with every object's members sorted, index-like names included. */
function writeSorted(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(writeSorted).join(',')}]`;
  const object = value as Record<string, unknown>;
  const names = Object.keys(object);
  sortNames(names);
  const members: string[] = [];
  for (const name of names) {
    const item = object[name];
    if (item !== undefined) members.push(`${JSON.stringify(name)}:${writeSorted(item)}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a JSON value: object members sorted by the UTF-16
 * code units of their names, no whitespace, numbers in ECMAScript form, strings escaped as
 * JSON.stringify does (which is RFC 8785's rule). Byte-identical to the `canonicalize` package for
 * every value it accepts (test/property/canonical-json.test.ts), and about three times faster
 * (bench:audit): one walk checks the value and puts unsorted objects in order, and JSON.stringify
 * writes the text (unless some member is named like an array index, which objects always
 * enumerate first).
 *
 * Plain JSON only: plain objects (prototype Object.prototype or null), arrays, strings, finite
 * numbers, booleans and null. Object members that are `undefined` are left out, as JSON and
 * `canonicalize` do. Anything else throws a NoCanonicalFormError (a TypeError) saying where it is:
 * lone surrogates in strings or keys and non-finite numbers, which RFC 8785 has no form
 * for; and, where `canonicalize` would write some other value in its place, `undefined` in an array
 * (null), a Date or any object with a prototype (its toJSON or its own members), bigints,
 * functions and symbols; and cycles.
 */
export function canonicalJson(value: unknown): string {
  const walk: Walk = { ancestors: [], indexNames: false };
  let canonical: unknown;
  try {
    canonical = canonicalValue(value, walk);
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw new NoCanonicalFormError(`$${error.steps.reverse().join('')}`, error.problem);
  }
  return walk.indexNames ? writeSorted(canonical) : JSON.stringify(canonical);
}
