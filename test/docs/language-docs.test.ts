// docs/language.md against the code: its generated parts (keywords, built-in functions,
// diagnostic codes, the zh-CN and de-DE forms of every example) must be what the generator makes
// of the code today. `npm run -s docs:language` rewrites them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGUAGE_DOC, renderLanguageDocs } from '../../scripts/language-docs.js';
import { DIAGNOSTIC_CODES } from '../../src/language/index.js';

const doc = readFileSync(LANGUAGE_DOC, 'utf8');

describe('docs/language.md', () => {
  it('is what the generator makes of the code (run `npm run -s docs:language` when this fails)', () => {
    expect(renderLanguageDocs(doc)).toBe(doc);
  });

  it('notices a keyword, a diagnostic or a translated example that drifted from the code', () => {
    for (const [from, to] of [
      ['| module | `Module` | `模块` | `Modul` |', '| module | `Module` | `模块` | `Modulus` |'],
      ['| PL1001 | lexical and syntax | unexpected character |', '| PL1001 | lexical and syntax | something else |'],
      ['模块 lending.demo。', '模块 lending.other。'],
    ] as const) {
      expect(doc).toContain(from);
      const drifted = doc.replace(from, to);
      expect(renderLanguageDocs(drifted)).toBe(doc);
    }
  });

  it('lists every diagnostic code and has every example in three locales', () => {
    for (const code of Object.keys(DIAGNOSTIC_CODES)) expect(doc).toContain(`| ${code} |`);
    const examples = doc.match(/<!-- example: [a-z0-9-]+ -->/g) ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(5);
    expect(doc.match(/<summary>zh-CN<\/summary>/g)).toHaveLength(examples.length);
    expect(doc.match(/<summary>de-DE<\/summary>/g)).toHaveLength(examples.length);
  });

  it('refuses an example that does not compile', () => {
    const broken = doc.replace('    Return 425.', '    Return "425".');
    expect(() => renderLanguageDocs(broken)).toThrow(/example `first-module` does not compile/);
  });
});
