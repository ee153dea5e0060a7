/**
 * Completion: after `name.` (or `a.b.`), the fields of that record type or the variants of that
 * enum; elsewhere the keywords of the document's locale, the built-ins, the module's rules and
 * types, and the variables of the rule around the cursor.
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver/node';
import { BUILTIN_NAMES } from '../language/builtins/index.js';
import type { Locale, ModuleNode } from '../language/index.js';
import { CONCEPTS, LOCALE_SYNTAXES } from '../language/locales/index.js';
import type { AnalysedDocument } from './document-store.js';
import { pathType, type TypeScope } from './expression-types.js';
import { builtinDescription, builtinSignature, declarationHeader, keywordMeaning, typeText } from './locale-words.js';
import { findDeclaration, findRecord, recordName, ruleAt } from './module-outline.js';

/** `applicant.address.` just before the cursor, maybe with the start of the field: the path before the last dot. */
const AFTER_DOT = /((?:[\p{L}_][\p{L}\p{N}_]*\.)+)[\p{L}\p{N}_]*$/u;

function keywordItems(locale: Locale): CompletionItem[] {
  const items = new Map<string, CompletionItem>();
  for (const concept of CONCEPTS) {
    for (const spelling of LOCALE_SYNTAXES[locale].keywords[concept]) {
      if (!items.has(spelling)) items.set(spelling, { label: spelling, kind: CompletionItemKind.Keyword, detail: keywordMeaning(concept, locale) });
    }
  }
  return [...items.values()];
}

function moduleItems(module: ModuleNode, locale: Locale): CompletionItem[] {
  return module.declarations.map((declaration) => ({
    label: declaration.name,
    kind:
      declaration.kind === 'RuleDecl'
        ? CompletionItemKind.Function
        : declaration.kind === 'RecordDecl'
          ? CompletionItemKind.Struct
          : declaration.kind === 'EnumDecl'
            ? CompletionItemKind.Enum
            : CompletionItemKind.Event,
    detail: declarationHeader(declaration, locale),
  }));
}

function memberItems(scope: TypeScope, path: string[], locale: Locale): CompletionItem[] {
  const enumDecl = path.length === 1 ? findDeclaration(scope.module, path[0]!) : undefined;
  if (enumDecl?.kind === 'EnumDecl') return enumDecl.variants.map((v) => ({ label: v.name, kind: CompletionItemKind.EnumMember, detail: enumDecl.name }));
  const record = findRecord(scope.module, recordName(scope.module, pathType(scope, path)) ?? '');
  return (record?.fields ?? []).map((field) => ({ label: field.name, kind: CompletionItemKind.Field, detail: typeText(field.type, locale) }));
}

export function completion(analysed: AnalysedDocument, offset: number): CompletionItem[] {
  const { document, analysis, typed } = analysed;
  const locale = analysis.locale;
  // The tree of this text, else of the latest text that parsed, for the names in reach.
  const module = analysis.module ?? typed?.module ?? null;
  const lineStart = document.offsetAt({ line: document.positionAt(offset).line, character: 0 });
  const beforeCursor = document.getText().slice(lineStart, offset);
  const scope: TypeScope | undefined = module === null ? undefined : { module, rule: ruleAt(module, offset), typed, types: null };
  const afterDot = AFTER_DOT.exec(beforeCursor);
  if (afterDot) return scope ? memberItems(scope, afterDot[1]!.slice(0, -1).split('.'), locale) : [];
  const items = keywordItems(locale);
  for (const name of BUILTIN_NAMES) {
    items.push({ label: name, kind: CompletionItemKind.Function, detail: builtinSignature(name, locale), documentation: builtinDescription(name, locale) });
  }
  if (scope === undefined) return items;
  items.push(...moduleItems(scope.module, locale));
  for (const param of scope.rule?.params ?? []) items.push({ label: param.name, kind: CompletionItemKind.Variable, detail: typeText(param.type, locale) });
  return items;
}
