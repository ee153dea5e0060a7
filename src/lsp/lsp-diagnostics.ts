/**
 * The compiler's diagnostics as LSP diagnostics: the code, its span as the range (the document's
 * start when it has none), and the help text appended to the message after `help: ` — every
 * client shows the message, while related information needs a place the help does not have.
 */
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../language/index.js';
import { sourceRange } from './source-range.js';

export const DIAGNOSTIC_SOURCE = 'policy';

export function toLspDiagnostic(diagnostic: Diagnostic, document: TextDocument): LspDiagnostic {
  const { span } = diagnostic;
  return {
    range: sourceRange(document, span ?? { start: 0, end: 0 }),
    severity: diagnostic.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: diagnostic.code,
    source: DIAGNOSTIC_SOURCE,
    message: diagnostic.help === undefined ? diagnostic.message : `${diagnostic.message}\nhelp: ${diagnostic.help}`,
  };
}
