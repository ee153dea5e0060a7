/**
 * Finding things in an analysed module: the node and word under a position, declarations by name,
 * the rule a position lies in, the type of a variable, the range of a declaration's name.
 */
import type { Declaration, EnumDecl, ModuleNode, Node, RecordDecl, RuleDecl, Span, Statement } from '../language/index.js';
import type { Analysis, SourceWord } from './analysis.js';
import type { ShownType } from './locale-words.js';

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'kind' in value && 'span' in value;
}

function childNodes(node: object): Node[] {
  const children: Node[] = [];
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) children.push(item);
    } else if (isNode(value)) children.push(value);
  }
  return children;
}

/** The nodes containing the offset, from the module down to the innermost. */
export function nodePathAt(module: ModuleNode, offset: number): Node[] {
  const path: Node[] = [module];
  for (;;) {
    const inner = childNodes(path[path.length - 1]!).find((child) => child.span.start <= offset && offset < child.span.end);
    if (inner === undefined) return path;
    path.push(inner);
  }
}

/** The keyword or name under the offset (a cursor just after a word is on it). */
export function wordAt(words: readonly SourceWord[], offset: number): SourceWord | undefined {
  return words.find((word) => word.start <= offset && offset < word.end) ?? words.find((word) => word.end === offset);
}

export function findDeclaration(module: ModuleNode, name: string): Declaration | undefined {
  return module.declarations.find((declaration) => declaration.name === name);
}

export function findRule(module: ModuleNode, name: string): RuleDecl | undefined {
  const found = findDeclaration(module, name);
  return found?.kind === 'RuleDecl' ? found : undefined;
}

export function findRecord(module: ModuleNode, name: string): RecordDecl | undefined {
  const found = findDeclaration(module, name);
  return found?.kind === 'RecordDecl' ? found : undefined;
}

export function findEnumOfVariant(module: ModuleNode, variant: string): EnumDecl | undefined {
  return module.declarations.find((d): d is EnumDecl => d.kind === 'EnumDecl' && d.variants.some((v) => v.name === variant));
}

/** The rule a position is in: the last one starting before it (while a rule is being typed its tree may end early). */
export function ruleAt(module: ModuleNode, offset: number): RuleDecl | undefined {
  let found: RuleDecl | undefined;
  for (const declaration of module.declarations) {
    if (declaration.span.start > offset) break;
    found = declaration.kind === 'RuleDecl' ? declaration : undefined;
  }
  return found;
}

/** The range of the name a node declares: its first word with that name. */
export function nameSpan(words: readonly SourceWord[], node: { span: Span }, name: string): { start: number; end: number } {
  const word = words.find((w) => w.concepts === null && w.text === name && w.start >= node.span.start && w.end <= node.span.end);
  return word ?? node.span;
}

function* statements(body: readonly Statement[]): Generator<Statement> {
  for (const statement of body) {
    yield statement;
    if (statement.kind === 'If') {
      for (const branch of statement.branches) yield* statements(branch.body);
      if (statement.otherwise) yield* statements(statement.otherwise);
    } else if (statement.kind === 'Match') {
      for (const matchCase of statement.cases) yield* statements(matchCase.body);
      if (statement.otherwise) yield* statements(statement.otherwise);
    } else if (statement.kind === 'ForEach') yield* statements(statement.body);
  }
}

/** Where a variable of a rule is bound: its parameter, else its first `Let` or `For each`. */
export function variableBinding(rule: RuleDecl, name: string): { span: Span } | undefined {
  const param = rule.params.find((p) => p.name === name);
  if (param) return param;
  for (const statement of statements(rule.body)) {
    if ((statement.kind === 'Let' && statement.name === name) || (statement.kind === 'ForEach' && statement.variable === name)) return statement;
  }
  return undefined;
}

/**
 * The type of a variable of a rule: a parameter's as written; a `Let` or loop variable's as the
 * checker found it in `typed` (the latest analysis that checked, looked up by rule and name).
 */
export function variableType(rule: RuleDecl, name: string, typed: Analysis | null): ShownType | undefined {
  const param = rule.params.find((p) => p.name === name);
  if (param) return param.type;
  if (typed?.module == null || typed.types === null) return undefined;
  const typedRule = findRule(typed.module, rule.name);
  if (typedRule === undefined) return undefined;
  for (const statement of statements(typedRule.body)) {
    if (statement.kind === 'Let' && statement.name === name) return typed.types.get(statement.value.id);
    if (statement.kind === 'ForEach' && statement.variable === name) {
      const list = typed.types.get(statement.iterable.id);
      return list?.kind === 'List' ? list.element : undefined;
    }
  }
  return undefined;
}

/** The name of the record type a shown type is, if it is one. */
export function recordName(module: ModuleNode, type: ShownType | undefined): string | undefined {
  if (type === undefined) return undefined;
  const name = type.kind === 'NamedType' || type.kind === 'Record' ? type.name : undefined;
  return name !== undefined && findRecord(module, name) ? name : undefined;
}
