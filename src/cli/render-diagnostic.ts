/**
 * Prints a diagnostic the way cel-go and Cedar do: the code and message, the place, the source
 * line and a caret run under the span, then the help text.
 *
 *   error[PL2001]: unknown name `scor`, did you mean `score`?
 *     --> loan.policy:3:10
 *      |
 *    3 |   Return scor + 1.
 *      |          ^^^^
 *      = help: …
 */
import type { Diagnostic } from '../language/diagnostics/index.js';
import { displayLine, displayWidth } from './display-width.js';

interface LineInfo {
  number: number;
  start: number;
  end: number;
}

/** The line holding `offset`, found from the source itself so that CRLF and any column unit are handled alike. */
function lineAt(source: string, offset: number): LineInfo {
  const at = Math.max(0, Math.min(offset, source.length));
  const start = source.lastIndexOf('\n', at - 1) + 1;
  let end = source.indexOf('\n', at);
  if (end < 0) end = source.length;
  if (end > start && source[end - 1] === '\r') end--;
  let number = 1;
  for (let i = source.indexOf('\n'); i >= 0 && i < start; i = source.indexOf('\n', i + 1)) number++;
  return { number, start, end };
}

export function renderDiagnostic(diagnostic: Diagnostic, source: string | null, fileName: string): string {
  const head = `${diagnostic.severity}[${diagnostic.code}]: ${diagnostic.message}`;
  const lines = [head];
  const span = diagnostic.span;
  if (span && source !== null) {
    const line = lineAt(source, span.start);
    const gutter = String(line.number).length;
    const pad = ' '.repeat(gutter);
    const text = source.slice(line.start, line.end);
    const before = text.slice(0, span.start - line.start);
    const underlined = source.slice(span.start, Math.min(Math.max(span.end, span.start), line.end));
    const carets = '^'.repeat(Math.max(1, displayWidth(underlined)));
    const continues = span.end > line.end ? ' …' : '';
    // The position printed is the diagnostic's own, the one the service puts in its error string.
    lines.push(`${pad}--> ${fileName}:${span.line}:${span.column}`);
    lines.push(`${pad} |`);
    lines.push(`${line.number} | ${displayLine(text)}`);
    lines.push(`${pad} | ${' '.repeat(displayWidth(before))}${carets}${continues}`);
    if (diagnostic.help) lines.push(`${pad} = help: ${diagnostic.help}`);
  } else {
    lines.push(`  --> ${fileName}`);
    if (diagnostic.help) lines.push(`   = help: ${diagnostic.help}`);
  }
  return lines.join('\n') + '\n';
}

export function renderDiagnostics(diagnostics: readonly Diagnostic[], source: string | null, fileName: string): string {
  return diagnostics.map((d) => renderDiagnostic(d, source, fileName)).join('\n');
}
