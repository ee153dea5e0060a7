import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripPositions, type ModuleNode } from '../../ast/index.js';
import { SUPPORTED_LOCALES, type Locale } from '../../api-types.js';
import { parse } from '../../parser/index.js';
import { LOAN_EXAMPLE_DE, LOAN_EXAMPLE_EN, LOAN_EXAMPLE_ZH } from '../../parser/__tests__/fixtures/loan-example.js';
import { WORKFLOW_EXAMPLE_DE, WORKFLOW_EXAMPLE_EN, WORKFLOW_EXAMPLE_ZH } from '../../parser/__tests__/fixtures/workflow-example.js';
import { format } from '../index.js';

const EXAMPLE: Record<Locale, string> = { 'en-US': LOAN_EXAMPLE_EN, 'zh-CN': LOAN_EXAMPLE_ZH, 'de-DE': LOAN_EXAMPLE_DE };
const WORKFLOW_EXAMPLE: Record<Locale, string> = { 'en-US': WORKFLOW_EXAMPLE_EN, 'zh-CN': WORKFLOW_EXAMPLE_ZH, 'de-DE': WORKFLOW_EXAMPLE_DE };

function parseOk(source: string, locale: Locale): ModuleNode {
  const result = parse(source, locale);
  expect(result.diagnostics, source).toEqual([]);
  return result.module!;
}

describe('round trip: parse(format(parse(P, A), B), B) equals parse(P, A)', () => {
  const pairs = SUPPORTED_LOCALES.flatMap((a) => SUPPORTED_LOCALES.map((b) => [a, b] as const));

  it.each(pairs)('§1 example from %s to %s', (a, b) => {
    const original = parseOk(EXAMPLE[a], a);
    const printed = format(original, b);
    expect(stripPositions(parseOk(printed, b))).toEqual(stripPositions(original));
    // The canonical form is a fixed point.
    expect(format(parseOk(printed, b), b)).toBe(printed);
  });

  it.each(pairs)('workflow example from %s to %s', (a, b) => {
    const original = parseOk(WORKFLOW_EXAMPLE[a], a);
    const printed = format(original, b);
    expect(printed).toBe(WORKFLOW_EXAMPLE[b]);
    expect(stripPositions(parseOk(printed, b))).toEqual(stripPositions(original));
  });
});

// ---------- generated trees ----------

/** Plain names, and names that are keywords (or keyword words) in some locale. */
const NAMES = ['a', 'rate', 'x1', '_t', '年龄', 'größe', 'in', 'is', 'Text', 'text', 'less', 'Fail', 'with', 'set', 'mit', 'ist', 'eines', 'Liste', '为', '中', '列表', 'Return', 'Otherwise', 'when', 'Pruefe', 'auf', 'MODUL', 'Step', 'within', 'hours', 'Ablauf', '等待'];
const name = fc.constantFrom(...NAMES);
const callee = fc.constantFrom(...NAMES, 'min', 'round', 'length');
const textUnit = fc.oneof(
  fc.constantFrom('"', '\\', '\n', '\t', '\r', '\u0001', '\u007f', '「', '」', '“', '”', '#', '.', ' ', '\u{1F600}'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const text = fc.string({ unit: textUnit, maxLength: 6 });
const comments = fc.array(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '#', '/', '中', '.', '`'), maxLength: 6 }).map((s) => s.trim()),
  { maxLength: 2 },
);

const { expr } = fc.letrec<{ expr: unknown }>((tie) => ({
  expr: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'expr' },
    fc.record({ kind: fc.constant('Name'), name }),
    fc.record({ kind: fc.constant('IntLiteral'), value: fc.maxSafeNat() }),
    fc.record({
      kind: fc.constant('FloatLiteral'),
      value: fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => Math.abs(v)),
    }),
    fc.record({ kind: fc.constant('TextLiteral'), value: text }),
    fc.record({ kind: fc.constant('BoolLiteral'), value: fc.boolean() }),
    fc.record({ kind: fc.constant('List'), elements: fc.array(tie('expr'), { maxLength: 3 }) }),
    fc.record({
      kind: fc.constant('Record'),
      typeName: name,
      fields: fc.array(fc.record({ kind: fc.constant('FieldInit'), name, value: tie('expr') }), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ kind: fc.constant('FieldAccess'), object: tie('expr'), field: name }),
    fc.record({ kind: fc.constant('Call'), callee, args: fc.array(tie('expr'), { maxLength: 3 }) }),
    fc.record({ kind: fc.constant('Unary'), op: fc.constantFrom('neg', 'not'), operand: tie('expr') }),
    fc.record({
      kind: fc.constant('Binary'),
      op: fc.constantFrom('or', 'and', 'add', 'sub', 'mul', 'div', 'mod'),
      left: tie('expr'),
      right: tie('expr'),
    }),
    fc.record({
      kind: fc.constant('Compare'),
      op: fc.constantFrom('eq', 'ne', 'lt', 'gt', 'ge', 'le', 'in', 'contains'),
      left: tie('expr'),
      right: tie('expr'),
    }),
    fc.record({ kind: fc.constant('Between'), value: tie('expr'), low: tie('expr'), high: tie('expr') }),
  ),
}));

const typeRef = fc.letrec<{ type: unknown }>((tie) => ({
  type: fc.oneof(
    { maxDepth: 2, depthIdentifier: 'type' },
    fc.record({ kind: fc.constant('PrimitiveType'), name: fc.constantFrom('Int', 'Float', 'Text', 'Bool') }),
    fc.record({ kind: fc.constant('NamedType'), name }),
    fc.record({ kind: fc.constant('ListType'), element: tie('type') }),
  ),
})).type;

const pattern = fc.oneof(
  fc.record({ kind: fc.constant('IntPattern'), value: fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }) }),
  fc.record({ kind: fc.constant('TextPattern'), value: text }),
  fc.record({ kind: fc.constant('VariantPattern'), enumName: fc.option(name, { nil: null }), variant: name }),
);

const { block } = fc.letrec<{ statement: unknown; block: unknown }>((tie) => ({
  block: fc.array(tie('statement'), { minLength: 1, maxLength: 3 }),
  statement: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'statement' },
    fc.record({ kind: fc.constant('Let'), leadingComments: comments, name, value: expr }),
    fc.record({ kind: fc.constant('Return'), leadingComments: comments, value: expr }),
    fc.record({ kind: fc.constant('Fail'), leadingComments: comments, message: expr }),
    fc.record({
      kind: fc.constant('If'),
      leadingComments: comments,
      branches: fc.array(fc.record({ kind: fc.constant('IfBranch'), condition: expr, body: tie('block') }), {
        minLength: 1,
        maxLength: 2,
      }),
      otherwise: fc.option(tie('block'), { nil: null }),
    }),
    fc.record({
      kind: fc.constant('Match'),
      leadingComments: comments,
      subject: expr,
      cases: fc.array(
        fc.record({ kind: fc.constant('MatchCase'), patterns: fc.array(pattern, { minLength: 1, maxLength: 3 }), body: tie('block') }),
        { minLength: 1, maxLength: 2 },
      ),
      otherwise: fc.option(tie('block'), { nil: null }),
    }),
    fc.record({ kind: fc.constant('ForEach'), leadingComments: comments, variable: name, iterable: expr, body: tie('block') }),
  ),
}));

const declaration = fc.oneof(
  fc.record({
    kind: fc.constant('RecordDecl'),
    leadingComments: comments,
    name,
    fields: fc.array(fc.record({ kind: fc.constant('FieldDecl'), name, type: typeRef }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('EnumDecl'),
    leadingComments: comments,
    name,
    variants: fc.array(fc.record({ kind: fc.constant('EnumVariant'), name }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('RuleDecl'),
    leadingComments: comments,
    name,
    params: fc.array(fc.record({ kind: fc.constant('Param'), name, type: typeRef }), { maxLength: 3 }),
    returnType: typeRef,
    body: block,
  }),
);

const moduleTree = fc.record({
  kind: fc.constant('Module'),
  leadingComments: comments,
  name: fc.array(name, { minLength: 1, maxLength: 3 }),
  declarations: fc.array(declaration, { maxLength: 3 }),
  trailingComments: comments,
});

describe('round trip of generated trees', () => {
  it.each(SUPPORTED_LOCALES)('format then parse in %s gives back any tree', (locale) => {
    fc.assert(
      fc.property(moduleTree, (tree) => {
        const printed = format(tree as ModuleNode, locale);
        const result = parse(printed, locale);
        expect(result.diagnostics, printed).toEqual([]);
        expect(stripPositions(result.module)).toEqual(stripPositions(tree));
      }),
      { numRuns: 250 },
    );
  });
});
