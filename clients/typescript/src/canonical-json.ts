/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a JSON value, as the service writes it for its
 * audit hashes: object members sorted by the UTF-16 code units of their names, no whitespace,
 * numbers in ECMAScript form and strings escaped as JSON.stringify does. The client's own copy, for
 * the values it reads from answers (parsed JSON), so it checks a receipt without the service's code.
 * A value without such a form (a non-finite number, a lone surrogate, undefined in an array, a
 * function, a cycle, an object with a prototype) throws a TypeError.
 */
export function canonicalJson(value: unknown): string {
  return write(value, []);
}

// A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function text(value: string, at: string): string {
  if (LONE_SURROGATE.test(value)) throw new TypeError(`\`${at}\` contains a lone surrogate`);
  return JSON.stringify(value);
}

function write(value: unknown, path: string[], ancestors: object[] = []): string {
  const at = `$${path.join('')}`;
  switch (typeof value) {
    case 'string':
      return text(value, at);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`\`${at}\` must be a finite number`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (ancestors.includes(value)) throw new TypeError(`\`${at}\` contains itself`);
      const inner = [...ancestors, value];
      if (Array.isArray(value)) {
        const items: string[] = [];
        for (let index = 0; index < value.length; index += 1) {
          const item: unknown = value[index];
          if (item === undefined) throw new TypeError(`\`${at}[${index}]\` is undefined`);
          items.push(write(item, [...path, `[${index}]`], inner));
        }
        return `[${items.join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) throw new TypeError(`\`${at}\` must be a plain object, array or JSON scalar`);
      const object = value as Record<string, unknown>;
      // The default sort compares UTF-16 code units, which is RFC 8785's order.
      const members: string[] = [];
      for (const name of Object.keys(object).sort()) {
        const item = object[name];
        // An absent optional member is simply not there, as in JSON.
        if (item === undefined) continue;
        members.push(`${text(name, `${at} key`)}:${write(item, [...path, `.${name}`], inner)}`);
      }
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`\`${at}\` is not a JSON value (${typeof value})`);
  }
}
