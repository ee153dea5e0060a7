/** Go to definition: of a rule, a type, an enum variant, a record field or a variable of the rule. */
import type { Location } from 'vscode-languageserver/node';
import type { Span } from '../language/index.js';
import type { AnalysedDocument } from './document-store.js';
import { expressionType } from './expression-types.js';
import { findDeclaration, findEnumOfVariant, findRecord, nameSpan, recordName, variableBinding } from './module-outline.js';
import { positionContext, type PositionContext } from './position-context.js';
import { sourceRange } from './source-range.js';

/** A field of a record type: its declaration. */
function fieldDeclaration(context: PositionContext, record: string | undefined, field: string): { span: Span } | undefined {
  return record === undefined ? undefined : findRecord(context.scope.module, record)?.fields.find((f) => f.name === field);
}

function definitionOf(context: PositionContext): { span: Span } | undefined {
  const { word, node, parent, scope } = context;
  if (word.concepts !== null) return undefined;
  if (node.kind === 'FieldAccess' && word.text === node.field && word.start >= node.object.span.end) {
    const field = fieldDeclaration(context, recordName(scope.module, expressionType(scope, node.object)), word.text);
    if (field) return field;
  }
  if (node.kind === 'FieldInit' && word.text === node.name && parent?.kind === 'Record') return fieldDeclaration(context, parent.typeName, word.text);
  const declaration = findDeclaration(scope.module, word.text);
  if (declaration) return declaration;
  const owner = findEnumOfVariant(scope.module, word.text);
  if (owner) return owner.variants.find((v) => v.name === word.text);
  return scope.rule && variableBinding(scope.rule, word.text);
}

export function definition(analysed: AnalysedDocument, offset: number): Location | null {
  const context = positionContext(analysed, offset);
  const target = context && definitionOf(context);
  if (target === undefined) return null;
  const { document, analysis } = analysed;
  const span = nameSpan(analysis.words, target, context!.word.text);
  return { uri: document.uri, range: sourceRange(document, span) };
}
