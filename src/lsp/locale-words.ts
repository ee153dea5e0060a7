/**
 * Types, declarations and built-ins written with the words of a locale, for hover and completion.
 * Declaration headers are printed by the formatter, so they read exactly as the canonical layout.
 */
import type { ValueType } from '../language/checker/index.js';
import { format, type Declaration, type Locale, type ModuleNode, type TypeRef } from '../language/index.js';
import type { BuiltinName } from '../language/builtins/index.js';
import { CONCEPTS, LOCALE_SYNTAXES, type Concept } from '../language/locales/index.js';
import { BUILTIN_TEXTS, KEYWORD_MEANINGS } from './language-texts.js';

/** A type as written in source, or as the checker found it. */
export type ShownType = TypeRef | ValueType;

const PRIMITIVES: Readonly<Record<string, Concept>> = { Int: 'int', Float: 'float', Text: 'text', Bool: 'bool' };

/** The canonical spelling of a keyword in a locale. */
export function keyword(concept: Concept, locale: Locale): string {
  return LOCALE_SYNTAXES[locale].keywords[concept][0] ?? concept;
}

export function typeText(type: ShownType, locale: Locale): string {
  switch (type.kind) {
    case 'PrimitiveType':
      return keyword(PRIMITIVES[type.name]!, locale);
    case 'ListType':
      return `${keyword('listOf', locale)} ${typeText(type.element, locale)}`;
    case 'List':
      return `${keyword('listOf', locale)} ${typeText(type.element, locale)}`;
    case 'NamedType':
    case 'Record':
    case 'Enum':
      return type.name;
    default:
      return keyword(PRIMITIVES[type.kind]!, locale);
  }
}

/** `name as Type` (`name 为 类型`, `name als Typ`). */
export function typedName(name: string, type: ShownType, locale: Locale): string {
  return `${name} ${keyword('as', locale)} ${typeText(type, locale)}`;
}

/** The first line of a declaration in canonical layout, without its block: a rule's or workflow's signature, a type's definition. */
export function declarationHeader(declaration: Declaration, locale: Locale): string {
  const bare: Declaration =
    declaration.kind === 'RuleDecl'
      ? { ...declaration, leadingComments: [], body: [] }
      : declaration.kind === 'WorkflowDecl'
        ? { ...declaration, leadingComments: [], steps: [] }
        : { ...declaration, leadingComments: [] };
  const module: ModuleNode = { ...declaration, kind: 'Module', name: ['m'], declarations: [bare], leadingComments: [], trailingComments: [] };
  const header = format(module, locale).split('\n')[2] ?? '';
  const colon = LOCALE_SYNTAXES[locale].punctuation.colon;
  return header.endsWith(colon) ? header.slice(0, -colon.length) : header;
}

export function keywordMeaning(concept: Concept, locale: Locale): string {
  return inLocale(KEYWORD_MEANINGS[concept], locale);
}

export function builtinSignature(name: BuiltinName, locale: Locale): string {
  return inLocale(BUILTIN_TEXTS[name].signature, locale);
}

export function builtinDescription(name: BuiltinName, locale: Locale): string {
  return inLocale(BUILTIN_TEXTS[name].description, locale);
}

const CONCEPT_SET: ReadonlySet<string> = new Set(CONCEPTS);

/** A text of language-texts.ts with each `{concept}` written as the locale's keyword. */
export function inLocale(text: string, locale: Locale): string {
  return text.replace(/\{(\w+)\}/g, (whole, concept: string) => (CONCEPT_SET.has(concept) ? keyword(concept as Concept, locale) : whole));
}
