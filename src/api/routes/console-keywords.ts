import { IDENT_PART_CLASSES, IDENT_START_CLASSES } from '../../language/lexer/index.js';
import { GERMAN_ASCII_SPELLINGS, LOCALE_SYNTAXES } from '../../language/locales/index.js';

/**
 * GET /console/policy-keywords.js: the keywords of each locale as the console's highlighters use
 * them, with the lexer's identifier classes and de-DE ASCII spellings, written from the lexer's own
 * tables when the service starts (the browser keeps no copy).
 * The time-limit words of `Await … within 48 hours` are left out: the lexer reads them as keywords
 * only there.
 */
export const POLICY_KEYWORDS_FILE = 'policy-keywords.js';

export function policyKeywordsModule(): string {
  const tables = Object.fromEntries(
    Object.values(LOCALE_SYNTAXES).map((syntax) => [
      syntax.tag,
      {
        caseInsensitive: syntax.caseInsensitive,
        germanAsciiSpellings: syntax.germanAsciiSpellings,
        spellings: [...new Set(Object.values(syntax.keywords).flat())].sort(),
      },
    ]),
  );
  return [
    "// Written by the service from the policy language's keyword tables.",
    `export const POLICY_KEYWORDS = ${JSON.stringify(tables)};`,
    `export const GERMAN_ASCII_SPELLINGS = ${JSON.stringify(GERMAN_ASCII_SPELLINGS)};`,
    `export const IDENTIFIER_CLASSES = ${JSON.stringify({ start: IDENT_START_CLASSES, part: IDENT_PART_CLASSES })};`,
    '',
  ].join('\n');
}
