import { describe, expect, it } from 'vitest';
import { stripPositions, type ModuleNode, type Node } from '../../ast/index.js';
import { parse } from '../index.js';
import { LOAN_EXAMPLE_DE, LOAN_EXAMPLE_EN, LOAN_EXAMPLE_ZH } from './fixtures/loan-example.js';

function parsedOk(source: string, locale: 'en-US' | 'zh-CN' | 'de-DE'): ModuleNode {
  const result = parse(source, locale);
  expect(result.diagnostics).toEqual([]);
  return result.module!;
}

/** Every node, parent before children, in the order of the object's keys. */
function preOrder(node: unknown, out: Node[] = []): Node[] {
  if (Array.isArray(node)) {
    for (const item of node) preOrder(item, out);
  } else if (node !== null && typeof node === 'object') {
    if ('kind' in node) out.push(node as Node);
    for (const [key, value] of Object.entries(node)) if (key !== 'span') preOrder(value, out);
  }
  return out;
}

describe('docs/language.md §1 example', () => {
  const en = parsedOk(LOAN_EXAMPLE_EN, 'en-US');

  it('parses identically in en-US, zh-CN and de-DE', () => {
    const expected = stripPositions(en);
    expect(stripPositions(parsedOk(LOAN_EXAMPLE_ZH, 'zh-CN'))).toEqual(expected);
    expect(stripPositions(parsedOk(LOAN_EXAMPLE_DE, 'de-DE'))).toEqual(expected);
  });

  it('has the declarations, statements and expressions of the source', () => {
    expect(en.name).toEqual(['lending', 'demo']);
    expect(en.leadingComments).toEqual(['Personal loan pricing.']);
    expect(en.declarations.map((d) => [d.kind, d.name])).toEqual([
      ['RecordDecl', 'Applicant'],
      ['EnumDecl', 'Tier'],
      ['RecordDecl', 'Decision'],
      ['RuleDecl', 'baseRate'],
      ['RuleDecl', 'evaluate'],
    ]);
    const evaluate = en.declarations[4]!;
    if (evaluate.kind !== 'RuleDecl') throw new Error('expected a rule');
    expect(evaluate.body.map((s) => s.kind)).toEqual(['If', 'Let', 'Match', 'Let', 'ForEach', 'Return']);
    const condition = stripPositions((evaluate.body[0] as Extract<Node, { kind: 'If' }>).branches[0]!.condition);
    expect(condition).toEqual({
      kind: 'Binary',
      op: 'or',
      left: {
        kind: 'Compare',
        op: 'lt',
        left: { kind: 'FieldAccess', object: { kind: 'Name', name: 'applicant' }, field: 'age' },
        right: { kind: 'IntLiteral', value: 18 },
      },
      right: {
        kind: 'Compare',
        op: 'lt',
        left: { kind: 'FieldAccess', object: { kind: 'Name', name: 'applicant' }, field: 'creditScore' },
        right: { kind: 'IntLiteral', value: 600 },
      },
    });
    const decisions = evaluate.body[5]!;
    expect(stripPositions(decisions)).toMatchObject({
      kind: 'Return',
      value: { kind: 'Record', typeName: 'Decision', fields: [{ name: 'approved' }, { name: 'reason' }, { name: 'rateBps' }, { name: 'limits' }] },
    });
  });

  it('numbers nodes 1, 2, 3, … parent first, in source order', () => {
    const nodes = preOrder(en);
    expect(nodes.map((node) => node.id)).toEqual(nodes.map((_, i) => i + 1));
    for (let i = 1; i < nodes.length; i++) {
      expect(nodes[i]!.span.start).toBeGreaterThanOrEqual(nodes[i - 1]!.span.start);
    }
  });

  it.each([
    ['en-US', LOAN_EXAMPLE_EN],
    ['zh-CN', LOAN_EXAMPLE_ZH],
    ['de-DE', LOAN_EXAMPLE_DE],
  ] as const)('gives %s spans that point into the original text', (locale, source) => {
    const module = parsedOk(source, locale);
    const rule = module.declarations[4]!;
    if (rule.kind !== 'RuleDecl') throw new Error('expected a rule');
    const letRate = rule.body[1]!;
    const text = source.slice(letRate.span.start, letRate.span.end);
    expect(text).toMatch(/^(Let|令|Sei) rate (be|为|gleich) baseRate[(（]applicant\.creditScore[)）][.。]$/);
    const lines = source.split('\n');
    expect(lines[letRate.span.line - 1]!.slice(letRate.span.column - 1, letRate.span.endColumn - 1)).toBe(text);
  });
});
