import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonShapeExcess } from '../middleware/json-shape.js';

/** The shape of a parsed value: how deep its arrays and objects nest, and the most members of one object. */
function shapeOf(value: unknown): { nesting: number; members: number } {
  if (value === null || typeof value !== 'object') return { nesting: 0, members: 0 };
  const children = Object.values(value);
  const inner = children.map(shapeOf);
  return {
    nesting: 1 + Math.max(0, ...inner.map((shape) => shape.nesting)),
    members: Math.max(Array.isArray(value) ? 0 : children.length, ...inner.map((shape) => shape.members)),
  };
}

/** Strings that put quotes, backslashes and brackets inside strings, in runs short and long. */
const trickyText = fc.oneof(
  fc.string({ unit: fc.constantFrom('"', '\\', '[', '{', ':', '}', ']', 'a', ' '), maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.nat({ max: 80 }).map((n) => `${'\\'.repeat(n)}"${'x'.repeat(n)}`),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, trickyText, fc.integer(), fc.constant(null), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 6 }),
  object: fc.dictionary(trickyText, tie('value'), { maxKeys: 6 }),
})).value;

describe('the shape of a JSON body (nesting, members of one object)', () => {
  it('passes a bound exactly when the parsed body does, whatever its strings hold', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), (value, maxNesting, maxMembers) => {
        const text = JSON.stringify(value);
        const shape = shapeOf(JSON.parse(text));
        const excess = jsonShapeExcess(text, maxNesting, maxMembers);
        if (excess === null) expect(shape.nesting <= maxNesting && shape.members <= maxMembers).toBe(true);
        else if (excess === 'nesting') expect(shape.nesting).toBeGreaterThan(maxNesting);
        else expect(shape.members).toBeGreaterThan(maxMembers);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds bounds passed after long strings, escaped quotes and backslash runs', () => {
    const source = 'Rule price given amount as Int, produce Text:\n  Return "ok \\"quoted\\" \\\\".\n'.repeat(40);
    // The body, the items, an item, its context: four levels.
    expect(jsonShapeExcess(JSON.stringify({ items: [{ source, context: { a: 1 } }] }), 4, 10)).toBeNull();
    expect(jsonShapeExcess(JSON.stringify({ items: [{ source, context: { a: [1] } }] }), 4, 10)).toBe('nesting');
    expect(jsonShapeExcess(JSON.stringify({ source, b: 1, c: 2 }), 3, 2)).toBe('members');
    // A closing quote after an even run of backslashes ends the string; the bracket after it counts.
    expect(jsonShapeExcess(`{"a":"${'\\\\'.repeat(20)}","b":[[[[1]]]]}`, 4, 10)).toBe('nesting');
    expect(jsonShapeExcess(`{"a":"${'\\\\'.repeat(20)}\\"[[[[","b":1}`, 4, 10)).toBeNull();
  });
});
