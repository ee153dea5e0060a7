/**
 * Formatting with the project's formatter (`policy fmt`), in the document's own locale or, for
 * "Show this module in …", in another. Only the syntax must be valid; a module with syntax errors
 * cannot be printed, and the request fails saying why.
 */
import { LSPErrorCodes, ResponseError, type TextEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { describeDiagnostic, sourceLocale, type Locale } from '../language/index.js';
import type { Analyser } from './analyser.js';
import { sourceRange } from './source-range.js';

/** The module printed in canonical layout in `target`, or the request's error. */
export async function printModule(analyser: Analyser, document: TextDocument, target?: Locale): Promise<string> {
  const text = document.getText();
  const locale = sourceLocale(text);
  const outcome = await analyser.format(text, locale, target ?? locale);
  if (outcome.ok) return outcome.text;
  const first = outcome.diagnostics[0];
  throw new ResponseError(LSPErrorCodes.RequestFailed, `the module cannot be printed: ${first ? describeDiagnostic(first) : 'it has syntax errors'}`);
}

export async function formatDocument(analyser: Analyser, document: TextDocument): Promise<TextEdit[]> {
  const formatted = await printModule(analyser, document);
  if (formatted === document.getText()) return [];
  return [{ range: sourceRange(document, { start: 0, end: document.getText().length }), newText: formatted }];
}
