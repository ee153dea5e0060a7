import type { Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

/** An offset range of the source (UTF-16 units, as spans are) as an LSP range; LSP positions count UTF-16 units too. */
export function sourceRange(document: TextDocument, span: { start: number; end: number }): Range {
  return { start: document.positionAt(span.start), end: document.positionAt(span.end) };
}
