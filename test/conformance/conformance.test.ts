import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../src/language/diagnostics/index.js';
import { canonicalLocale, loadCaseFiles } from './case-file.js';
import { judgeCase, judgeTranslations } from './judge-case.js';

const files = loadCaseFiles();
const allCases = files.flatMap((f) => f.cases);

for (const file of files) {
  describe(`${file.file}: ${file.description}`, () => {
    for (const c of file.cases) {
      it(`[${c.locale}] ${c.name}`, () => {
        const verdict = judgeCase(c);
        expect(verdict.pass, `${c.name}\n${c.text}\n${verdict.reason}`).toBe(true);
      });
      if ('result' in c.expect && c.function !== undefined) {
        it(`[${c.locale} → every locale] ${c.name}`, () => {
          const verdict = judgeTranslations(c);
          expect(verdict.pass, `${c.name}\n${c.text}\n${verdict.reason}`).toBe(true);
        });
      }
    }
  });
}

describe('the corpus itself', () => {
  it('has at least 170 cases with unique names', () => {
    expect(allCases.length).toBeGreaterThanOrEqual(170);
    const names = allCases.map((c) => c.name);
    const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
    expect(duplicates).toEqual([]);
  });

  it('has at least 50 cases in each of the three locales', () => {
    const counts: Record<string, number> = { 'en-US': 0, 'zh-CN': 0, 'de-DE': 0 };
    for (const c of allCases) {
      const locale = canonicalLocale(c.locale);
      if (locale) counts[locale] = (counts[locale] ?? 0) + 1;
    }
    for (const locale of Object.keys(counts)) {
      expect(counts[locale], locale).toBeGreaterThanOrEqual(50);
    }
  });

  it('expects every diagnostic code that evaluation can produce at least once', () => {
    // PL4004 is raised by the host that enforces the wall-time limit, never by compile or evaluate.
    const producible = Object.keys(DIAGNOSTIC_CODES).filter((code) => code !== 'PL4004');
    const expected = new Set(
      allCases.flatMap((c) => ('diagnostics' in c.expect ? c.expect.diagnostics.map((d) => d.code) : [])),
    );
    expect(producible.filter((code) => !expected.has(code))).toEqual([]);
    expect([...expected].filter((code) => !(code in DIAGNOSTIC_CODES))).toEqual([]);
  });
});
