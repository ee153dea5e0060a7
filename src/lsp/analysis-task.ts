/** The work of the analysis thread (workers/lsp-analysis-thread.ts): never run on the server's event loop. */
import { check } from '../language/checker/index.js';
import { compile, format, parse, type Locale } from '../language/index.js';
import { tokenize } from '../language/lexer/index.js';
import type { Analysis, FormatOutcome, SourceWord } from './analysis.js';

export type AnalysisTask =
  | { kind: 'analyse'; text: string; locale: Locale }
  | { kind: 'format'; text: string; locale: Locale; target: Locale };

function analyse(text: string, locale: Locale): Analysis {
  const { program, diagnostics } = compile(text, locale);
  const parsed = parse(text, locale);
  if (parsed.module === null) return { locale, diagnostics, module: null, words: [], types: null };
  const words: SourceWord[] = [];
  for (const token of tokenize(text, locale).tokens) {
    if (token.kind === 'keyword' || token.kind === 'ident') words.push({ start: token.start, end: token.end, text: token.text, concepts: token.concepts });
  }
  // compile found no error, so checking this tree (the same ids) succeeds too.
  const types = program === null ? null : (check(parsed.module).checked?.types ?? null);
  return { locale, diagnostics, module: parsed.module, words, types };
}

function formatSource(text: string, locale: Locale, target: Locale): FormatOutcome {
  const parsed = parse(text, locale);
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (parsed.module === null || errors.length > 0) return { ok: false, diagnostics: errors.length > 0 ? errors : parsed.diagnostics };
  return { ok: true, text: format(parsed.module, target) };
}

export function runAnalysisTask(task: AnalysisTask): Analysis | FormatOutcome {
  return task.kind === 'analyse' ? analyse(task.text, task.locale) : formatSource(task.text, task.locale, task.target);
}
