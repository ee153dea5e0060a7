import type { Locale, ParseResult } from '../api-types.js';
import { SUPPORTED_LOCALES } from '../api-types.js';
import { HeaderOfOtherLocale, placeDiagnostic, UnsupportedLocale, type Diagnostic } from '../diagnostics/index.js';
import { checkSourceSize } from '../lexer/source-size.js';
import { syntaxDiagnostic } from '../lexer/syntax-diagnostic.js';
import { MAX_DIAGNOSTICS, tokenize } from '../lexer/tokenize.js';
import type { Token } from '../lexer/token.js';
import { localeOfModuleKeyword } from '../locales/detect-locale.js';
import { getLocaleSyntax } from '../locales/locale-syntaxes.js';
import { assignNodeIds } from './assign-node-ids.js';
import { ModuleParser } from './module-parser.js';

/** PL6003 when the first word is the module keyword of another locale than the one requested. */
function headerLocaleMismatch(tokens: readonly Token[], locale: Locale): Diagnostic | null {
  const first = tokens.find((token) => token.kind !== 'indent' && token.kind !== 'newline');
  if (!first || first.kind !== 'ident') return null;
  const other = localeOfModuleKeyword(first.text);
  if (other === null || other === locale) return null;
  return syntaxDiagnostic(HeaderOfOtherLocale(first.text, other, locale, getLocaleSyntax(locale)!.keywords.module[0]!), first);
}

/**
 * Source text → syntax tree of a module, with every lexical and syntax problem as a diagnostic
 * (at most 20, in source order). Never throws for bad input.
 */
export function parse(source: string, locale: Locale): ParseResult {
  const syntax = getLocaleSyntax(locale);
  if (!syntax) {
    return {
      module: null,
      diagnostics: [placeDiagnostic(UnsupportedLocale.parse(String(locale), SUPPORTED_LOCALES), null)],
    };
  }
  const tooLarge = checkSourceSize(source);
  if (tooLarge) return { module: null, diagnostics: [tooLarge] };
  const lexed = tokenize(source, locale);
  const mismatch = headerLocaleMismatch(lexed.tokens, locale);
  if (mismatch) return { module: null, diagnostics: [mismatch] };
  const parser = new ModuleParser(lexed, syntax, source);
  const module = parser.parseModule();
  if (module) assignNodeIds(module);
  const diagnostics = parser.result().sort((a, b) => a.span!.start - b.span!.start).slice(0, MAX_DIAGNOSTICS);
  return { module, diagnostics };
}
