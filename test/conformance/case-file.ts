/**
 * The conformance corpus format: language cases kept as data so that any implementation can be
 * judged against them through the public API alone. Case files are validated strictly so that a
 * typo in a case fails loudly instead of silently testing nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const json: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number(), z.string(), z.array(json), z.record(z.string(), json)]),
);

const expectedDiagnostic = z.strictObject({
  code: z.string().regex(/^PL\d{4}$/),
  /** The underlined source text, `source.slice(span.start, span.end)`. */
  text: z.string().optional(),
  /** For diagnostics without a place (input, locale, entry) or to pin a did-you-mean hint. */
  messageIncludes: z.string().optional(),
});

const caseSchema = z.strictObject({
  name: z.string().min(1),
  locale: z.string(),
  /** A string, or lines joined with `\n` (easier to read and review as JSON). */
  source: z.union([z.string(), z.array(z.string())]),
  function: z.string().optional(),
  context: json.optional(),
  /**
   * Appends `count` copies of `line` after the source, each with `{n}` replaced by its number from 1
   * (a workflow with thousands of steps, without thousands of lines in the file).
   */
  repeatLine: z.strictObject({ line: z.string().min(1), count: z.number().int().positive().max(100_000) }).optional(),
  /** Appends a comment line so the source reaches this many UTF-16 code units (size limits). */
  padSourceTo: z.number().int().positive().optional(),
  /** The character the padding comment repeats (default `x`); a CJK one makes the UTF-8 size triple. */
  padWith: z.string().length(1).optional(),
  /** Evaluation options (EvaluateOptions); a trace, when asked for, is not compared. */
  options: z
    .strictObject({
      stepBudget: z.number().int().positive().optional(),
      trace: z.boolean().optional(),
      maxResultBytes: z.number().int().positive().optional(),
      maxTraceBytes: z.number().int().positive().optional(),
    })
    .optional(),
  expect: z.union([
    z.strictObject({ result: json }),
    z.strictObject({ diagnostics: z.array(expectedDiagnostic).min(1) }),
  ]),
});

const caseFileSchema = z.strictObject({
  description: z.string(),
  cases: z.array(caseSchema).min(1),
});

export type ExpectedDiagnostic = z.infer<typeof expectedDiagnostic>;
export type ConformanceCase = z.infer<typeof caseSchema>;

export interface LoadedCase extends ConformanceCase {
  file: string;
  /** The full source text after joining lines and padding. */
  text: string;
}

export const CASES_DIR = join(import.meta.dirname, 'cases');

export function sourceText(c: ConformanceCase): string {
  let text = Array.isArray(c.source) ? c.source.join('\n') + '\n' : c.source;
  if (c.repeatLine !== undefined) {
    const { line, count } = c.repeatLine;
    text += Array.from({ length: count }, (_, i) => `${line.replaceAll('{n}', String(i + 1))}\n`).join('');
  }
  if (c.padSourceTo !== undefined && text.length < c.padSourceTo) {
    const header = '\n# ';
    text += header + (c.padWith ?? 'x').repeat(Math.max(0, c.padSourceTo - text.length - header.length - 1)) + '\n';
  }
  return text;
}

export function loadCaseFiles(dir: string = CASES_DIR): { file: string; description: string; cases: LoadedCase[] }[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const raw: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      const parsed = caseFileSchema.safeParse(raw);
      if (!parsed.success) {
        throw new Error(`${file}: invalid case file: ${z.prettifyError(parsed.error)}`);
      }
      return {
        file,
        description: parsed.data.description,
        cases: parsed.data.cases.map((c) => ({ ...c, file, text: sourceText(c) })),
      };
    });
}

/** Maps the tag spellings accepted by docs/language.md §8 to a canonical locale, or null. */
export function canonicalLocale(tag: string): 'en-US' | 'zh-CN' | 'de-DE' | null {
  const t = tag.toLowerCase().replace('_', '-');
  if (t === 'en' || t === 'en-us') return 'en-US';
  if (t === 'zh' || t === 'zh-cn') return 'zh-CN';
  if (t === 'de' || t === 'de-de') return 'de-DE';
  return null;
}
