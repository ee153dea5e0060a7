/**
 * Document symbols: rules (Function), record types (Struct, with their fields), enums (Enum, with
 * their variants) and workflows (Event, with their steps as Method), each with its declaration header.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver/node';
import type { Span } from '../language/index.js';
import type { AnalysedDocument } from './document-store.js';
import { declarationHeader, typeText } from './locale-words.js';
import { nameSpan } from './module-outline.js';
import { sourceRange } from './source-range.js';

export function documentSymbols(analysed: AnalysedDocument): DocumentSymbol[] {
  const { document, analysis } = analysed;
  if (analysis.module === null) return [];
  const symbol = (name: string, kind: SymbolKind, node: { span: Span }, detail: string, children?: DocumentSymbol[]): DocumentSymbol => ({
    name,
    kind,
    detail,
    range: sourceRange(document, node.span),
    selectionRange: sourceRange(document, nameSpan(analysis.words, node, name)),
    ...(children === undefined ? {} : { children }),
  });
  const locale = analysis.locale;
  return analysis.module.declarations.map((declaration) => {
    const detail = declarationHeader(declaration, locale);
    switch (declaration.kind) {
      case 'RecordDecl': {
        const fields = declaration.fields.map((field) => symbol(field.name, SymbolKind.Field, field, typeText(field.type, locale)));
        return symbol(declaration.name, SymbolKind.Struct, declaration, detail, fields);
      }
      case 'EnumDecl': {
        const variants = declaration.variants.map((variant) => symbol(variant.name, SymbolKind.EnumMember, variant, declaration.name));
        return symbol(declaration.name, SymbolKind.Enum, declaration, detail, variants);
      }
      case 'WorkflowDecl': {
        const steps = declaration.steps.map((step) => symbol(step.name, SymbolKind.Method, step, ''));
        return symbol(declaration.name, SymbolKind.Event, declaration, detail, steps);
      }
      case 'RuleDecl':
        return symbol(declaration.name, SymbolKind.Function, declaration, detail);
    }
  });
}
