/**
 * Closure templates and their fresh copies, used for the input and output conversions of hot
 * entry points.
 *
 * A template is a factory function that refers only to its own parameters. Used directly, all
 * conversions of one kind share one function body and so share the engine's property caches: a
 * record conversion's read of its first field sees the first field of every record type in the
 * process and falls back to slow lookups.
 *
 * A fresh copy is the same function body compiled again from the template's own source text
 * (`Function.prototype.toString` of functions in this codebase, never text derived from a policy
 * or its input; policy values only ever enter as arguments). Each copy's caches see one record
 * type only.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Template = (...args: any[]) => unknown;

const sources = new WeakMap<Template, string>();
let copies = 0;

function copyOf<T extends Template>(template: T): T {
  let source = sources.get(template);
  if (source === undefined) {
    source = template.toString();
    sources.set(template, source);
  }
  // The counter keeps the engine's compilation cache from handing back a shared copy.
  const factory = new Function(`return (${source});\n//# copy ${copies++}`) as () => T;
  return factory();
}

/** Whether copies work in this build (a code transform could make a template refer to module scope). */
function copiesWork(): boolean {
  try {
    const probe = (a: number, b: () => number) => () => a + b();
    return copyOf(probe)(1, () => 2)() === 3;
  } catch {
    return false;
  }
}

let available: boolean | null = null;

export type Instantiate = <T extends Template>(template: T) => T;

/** Templates used as they are: all nodes of a kind share code. */
export const sharedTemplates: Instantiate = (template) => template;

/** A fresh copy per call; falls back to the shared template when copies cannot work here. */
export const freshTemplates: Instantiate = (template) => {
  available ??= copiesWork();
  return available ? copyOf(template) : template;
};
