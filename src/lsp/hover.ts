/**
 * Hover: a keyword's meaning; a rule's, workflow's or type's declaration; a built-in's signature and
 * description; the type of a variable, parameter or field. Code is written in the document's locale.
 */
import type { Hover } from 'vscode-languageserver/node';
import { isBuiltinName } from '../language/builtins/index.js';
import type { Locale } from '../language/index.js';
import type { SourceWord } from './analysis.js';
import type { AnalysedDocument } from './document-store.js';
import { expressionType, fieldType } from './expression-types.js';
import { builtinDescription, builtinSignature, declarationHeader, keywordMeaning, typedName, type ShownType } from './locale-words.js';
import { findDeclaration, findEnumOfVariant, variableType } from './module-outline.js';
import { positionContext, type PositionContext } from './position-context.js';
import { sourceRange } from './source-range.js';

const code = (text: string): string => `\`\`\`policy\n${text}\n\`\`\``;

function keywordHover(word: SourceWord, locale: Locale): string {
  return word.concepts!.map((concept) => `**${word.text}**: ${keywordMeaning(concept, locale)}`).join('\n\n');
}

function typed(name: string, type: ShownType | undefined, locale: Locale): string | undefined {
  return type === undefined ? undefined : code(typedName(name, type, locale));
}

/** A name by itself: a declaration of the module, a built-in, an enum variant, or a variable of the rule. */
function nameHover(context: PositionContext, locale: Locale): string | undefined {
  const { word, scope } = context;
  const declaration = findDeclaration(scope.module, word.text);
  if (declaration) return code(declarationHeader(declaration, locale));
  if (isBuiltinName(word.text)) return `${code(builtinSignature(word.text, locale))}\n\n${builtinDescription(word.text, locale)}`;
  const owner = findEnumOfVariant(scope.module, word.text);
  if (owner) return code(declarationHeader(owner, locale));
  return scope.rule && typed(word.text, variableType(scope.rule, word.text, scope.typed), locale);
}

function hoverText(context: PositionContext, locale: Locale): string | undefined {
  const { word, node, scope } = context;
  if (word.concepts !== null) return keywordHover(word, locale);
  switch (node.kind) {
    case 'FieldAccess':
      // On the field: its type; on a qualified variant (`Tier.Prime`) the name hover tells the enum.
      if (word.text === node.field && word.start >= node.object.span.end) {
        return typed(word.text, expressionType(scope, node), locale) ?? nameHover(context, locale);
      }
      break;
    case 'Name':
      // A bare enum variant shows its enum; a variable its type as checked.
      if (findEnumOfVariant(scope.module, word.text)) break;
      return typed(word.text, scope.types?.get(node.id), locale) ?? nameHover(context, locale);
    case 'FieldDecl':
    case 'Param':
      if (word.text === node.name) return typed(node.name, node.type, locale);
      break;
    case 'FieldInit':
      if (word.text === node.name && context.parent?.kind === 'Record') return typed(node.name, fieldType(scope.module, context.parent.typeName, node.name), locale);
      break;
    case 'Let':
      if (word.text === node.name) return typed(node.name, expressionType(scope, node.value), locale);
      break;
    case 'ForEach':
      if (word.text === node.variable && scope.rule) return typed(node.variable, variableType(scope.rule, node.variable, scope.typed), locale);
      break;
  }
  return nameHover(context, locale);
}

export function hover(analysed: AnalysedDocument, offset: number): Hover | null {
  const context = positionContext(analysed, offset);
  if (context === undefined) return null;
  const text = hoverText(context, analysed.analysis.locale);
  if (text === undefined) return null;
  return { contents: { kind: 'markdown', value: text }, range: sourceRange(analysed.document, context.word) };
}
