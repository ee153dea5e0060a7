/**
 * "Show this module in de-DE / zh-CN / en-US": a code action per other locale whose command,
 * `policy.showModuleInLocale` with the document's URI and the locale, returns the module printed in
 * that locale (`{ uri, locale, text }`). The server changes no file: a plain LSP client gets the
 * text as the command's result, and an editor opens it where it likes (docs/language.md, Editor support).
 */
import { CodeActionKind, ResponseError, ErrorCodes, type CodeAction } from 'vscode-languageserver/node';
import { resolveLocale, sourceLocale, SUPPORTED_LOCALES, type Locale } from '../language/index.js';
import type { Analyser } from './analyser.js';
import type { DocumentStore } from './document-store.js';
import { printModule } from './formatting.js';

export const SHOW_IN_LOCALE_COMMAND = 'policy.showModuleInLocale';

export interface ModuleInLocale {
  uri: string;
  locale: Locale;
  text: string;
}

export function showInLocaleActions(uri: string, text: string): CodeAction[] {
  const own = sourceLocale(text);
  return SUPPORTED_LOCALES.filter((locale) => locale !== own).map((locale) => {
    const title = `Show this module in ${locale}`;
    return { title, kind: CodeActionKind.Source, command: { title, command: SHOW_IN_LOCALE_COMMAND, arguments: [uri, locale] } };
  });
}

export async function showInLocale(analyser: Analyser, documents: DocumentStore, args: readonly unknown[]): Promise<ModuleInLocale> {
  const [uri, tag] = args;
  const locale = typeof tag === 'string' ? resolveLocale(tag) : null;
  const document = typeof uri === 'string' ? documents.text(uri) : undefined;
  if (document === undefined || locale === null) {
    throw new ResponseError(ErrorCodes.InvalidParams, `${SHOW_IN_LOCALE_COMMAND} takes the URI of an open document and a locale (${SUPPORTED_LOCALES.join(', ')})`);
  }
  return { uri: document.uri, locale, text: await printModule(analyser, document, locale) };
}
