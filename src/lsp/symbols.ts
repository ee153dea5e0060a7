/** Document symbols: rules, record types (with their fields), enums (with their variants), workflows (with their steps). */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import type { Declaration, Span } from '../language/index.js';
import type { AnalysedDocument } from './document-store.js';
import { declarationHeader, typeText } from './locale-words.js';
import { nameSpan } from './module-outline.js';

const KINDS: Readonly<Record<Declaration['kind'], SymbolKind>> = {
  RuleDecl: SymbolKind.Function,
  RecordDecl: SymbolKind.Struct,
  EnumDecl: SymbolKind.Enum,
  WorkflowDecl: SymbolKind.Event,
};

export function documentSymbols(analysed: AnalysedDocument): DocumentSymbol[] {
  const { document, analysis } = analysed;
  if (analysis.module === null) return [];
  const range = (span: { start: number; end: number }) => ({ start: document.positionAt(span.start), end: document.positionAt(span.end) });
  const symbol = (name: string, kind: SymbolKind, node: { span: Span }, detail: string, children?: DocumentSymbol[]): DocumentSymbol => ({
    name,
    kind,
    detail,
    range: range(node.span),
    selectionRange: range(nameSpan(analysis.words, node, name)),
    ...(children === undefined ? {} : { children }),
  });
  const locale = analysis.locale;
  return analysis.module.declarations.map((declaration) => {
    const detail = declarationHeader(declaration, locale);
    switch (declaration.kind) {
      case 'RecordDecl':
        return symbol(declaration.name, KINDS.RecordDecl, declaration, detail,
          declaration.fields.map((field) => symbol(field.name, SymbolKind.Field, field, typeText(field.type, locale))));
      case 'EnumDecl':
        return symbol(declaration.name, KINDS.EnumDecl, declaration, detail,
          declaration.variants.map((variant) => symbol(variant.name, SymbolKind.EnumMember, variant, declaration.name)));
      case 'WorkflowDecl':
        return symbol(declaration.name, KINDS.WorkflowDecl, declaration, detail,
          declaration.steps.map((step) => symbol(step.name, SymbolKind.Method, step, '')));
      case 'RuleDecl':
        return symbol(declaration.name, KINDS.RuleDecl, declaration, detail);
    }
  });
}
