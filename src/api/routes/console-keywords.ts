import { LOCALE_SYNTAXES } from '../../language/locales/index.js';

/**
 * GET /console/policy-keywords.js: the keywords of each locale as the console's highlighters use
 * them, written from the lexer's own tables when the service starts (the browser keeps no copy).
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
  return `// Written by the service from the policy language's keyword tables.\nexport const POLICY_KEYWORDS = ${JSON.stringify(tables)};\n`;
}
