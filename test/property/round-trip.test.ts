import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripPositions } from '../../src/language/ast/index.js';
import { compile, format, parse } from '../../src/language/index.js';
import { chooserFrom, LOCALES } from './chooser.js';
import { generateModule } from './generate-module.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
// endOnFailure: a failure is reported at once with its seed and path for replay; shrinking
// generated modules can take many minutes and would only delay the same report.

function describeErrors(source: string, diagnostics: readonly { code: string; message: string; span: { start: number; end: number } | null }[]): string {
  const shown = diagnostics.map((d) => `${d.code} ${d.message} ${d.span ? JSON.stringify(source.slice(d.span.start, d.span.end)) : ''}`);
  return `${shown.join('\n')}\n--- source ---\n${source}`;
}

/** compile() must never throw; when it does, say for which source. */
function compileOrExplain(source: string, locale: string): ReturnType<typeof compile> {
  try {
    return compile(source, locale);
  } catch (error) {
    throw new Error(`compile threw ${String(error)}\n--- source ---\n${source}`, { cause: error });
  }
}

// Generous: the work grows with PROPERTY_RUNS, and CI shares two cores with other suites.
describe('format → parse round trip (docs/language.md §8)', { timeout: 600_000 }, () => {
  it('prints every generated module in each locale so that it parses back to the same tree', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const { module } = generateModule(chooserFrom(g));
        const expected = stripPositions(module);
        for (const locale of LOCALES) {
          const source = format(module, locale);
          const parsed = parse(source, locale);
          expect(parsed.diagnostics, describeErrors(source, parsed.diagnostics)).toEqual([]);
          expect(stripPositions(parsed.module), source).toEqual(expected);
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('keeps parse(format(parse(P, A), B), B) equal to parse(P, A) for all 9 locale pairs', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const { module } = generateModule(chooserFrom(g));
        for (const a of LOCALES) {
          const source = format(module, a);
          const parsedA = parse(source, a);
          expect(parsedA.module, describeErrors(source, parsedA.diagnostics)).not.toBeNull();
          const tree = stripPositions(parsedA.module);
          for (const b of LOCALES) {
            const translated = format(parsedA.module!, b);
            const parsedB = parse(translated, b);
            expect(parsedB.diagnostics, `${a} → ${b}\n${describeErrors(translated, parsedB.diagnostics)}`).toEqual([]);
            expect(stripPositions(parsedB.module), `${a} → ${b}\n${translated}`).toEqual(tree);
          }
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('formats canonically: formatting the re-parsed module prints the same text', () => {
    fc.assert(
      fc.property(fc.gen(), fc.constantFrom(...LOCALES), (g, locale) => {
        const { module } = generateModule(chooserFrom(g));
        const once = format(module, locale);
        const reparsed = parse(once, locale);
        expect(reparsed.module).not.toBeNull();
        expect(format(reparsed.module!, locale)).toBe(once);
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });

  it('generates only valid modules: each compiles without errors in every locale', () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const { module } = generateModule(chooserFrom(g));
        for (const locale of LOCALES) {
          const source = format(module, locale);
          const compiled = compileOrExplain(source, locale);
          const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
          expect(errors, describeErrors(source, errors)).toEqual([]);
          expect(compiled.program).not.toBeNull();
        }
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});
