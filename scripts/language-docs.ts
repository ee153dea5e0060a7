/**
 * Keeps the generated parts of docs/language.md in step with the code:
 *   npm run -s docs:language            rewrites them
 *   npm run -s docs:language -- --check exits 1 when they are out of date (the test suite checks too)
 * Generated: the keyword table (from the locale tables), the built-in functions (from the builtin
 * table), the diagnostic codes (from their declarations), and the zh-CN and de-DE forms of every en-US
 * example (printed by the formatter from the parsed example, which must compile).
 */
import { BUILTIN_NAMES, BUILTINS } from '../src/language/builtins/index.js';
import { compile, describeDiagnostic, DIAGNOSTIC_DEFINITIONS, format, parse } from '../src/language/index.js';
import { CONCEPTS, LOCALE_SYNTAXES } from '../src/language/locales/index.js';
import { CliError, isEntryPoint, runAsEntryPoint, type CliIo } from './cli-io.js';
import { repositoryPath, runGeneratedFileCli } from './generated-file.js';

export const LANGUAGE_DOC = repositoryPath('docs/language.md');
const LOCALES = ['en-US', 'zh-CN', 'de-DE'] as const;
const RANGES: Record<string, string> = {
  PL1: 'lexical and syntax',
  PL2: 'names and types',
  PL3: 'runtime',
  PL4: 'limits',
  PL5: 'context input',
  PL6: 'locale and entry',
};

const cell = (words: readonly string[]): string => (words.length === 0 ? '—' : words.map((word) => `\`${word}\``).join(' / '));

function keywordTable(): string {
  const rows = CONCEPTS.map((concept) => `| ${concept} | ${LOCALES.map((locale) => cell(LOCALE_SYNTAXES[locale].keywords[concept])).join(' | ')} |`);
  const durations = (['within', 'minutes', 'hours', 'days'] as const).map(
    (word) => `| ${word} (workflow deadlines) | ${LOCALES.map((locale) => cell(LOCALE_SYNTAXES[locale].durations[word])).join(' | ')} |`,
  );
  return ['| concept | en-US | zh-CN | de-DE |', '|---|---|---|---|', ...rows, ...durations].join('\n');
}

function builtinTable(): string {
  const rows = BUILTIN_NAMES.map((name) => {
    const [min, max] = BUILTINS[name].arity;
    const count = min === max ? String(min) : max === Number.POSITIVE_INFINITY || max > 100 ? `${min} or more` : `${min} to ${max}`;
    return `| \`${name}\` | ${count} |`;
  });
  return ['| function | arguments |', '|---|---|', ...rows].join('\n');
}

function diagnosticTable(): string {
  const rows = DIAGNOSTIC_DEFINITIONS.map(({ code, summary }) => `| ${code} | ${RANGES[code.slice(0, 3)] ?? ''} | ${summary.replaceAll('|', '\\|')} |`);
  return ['| code | kind | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** The zh-CN and de-DE forms of an en-US example; the example must compile without errors. */
function translations(name: string, source: string): string {
  const compiled = compile(source, 'en-US');
  const errors = compiled.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new CliError(`example \`${name}\` does not compile: ${errors.map(describeDiagnostic).join('; ')}`);
  const parsed = parse(source, 'en-US');
  return (['zh-CN', 'de-DE'] as const)
    .map((locale) => `<details><summary>${locale}</summary>\n\n\`\`\`policy\n${format(parsed.module!, locale)}\`\`\`\n\n</details>`)
    .join('\n\n');
}

const GENERATED = /(<!-- generated: (keywords|builtins|diagnostics) -->\n)[\s\S]*?(<!-- end generated -->)/g;
const EXAMPLE = /(<!-- example: ([a-z0-9-]+) -->\n```policy\n)([\s\S]*?)(```\n<!-- translations -->\n)[\s\S]*?(<!-- end translations -->)/g;

/** The document with every generated part recomputed. */
export function renderLanguageDocs(markdown: string): string {
  const tables: Record<string, () => string> = { keywords: keywordTable, builtins: builtinTable, diagnostics: diagnosticTable };
  return markdown
    .replace(GENERATED, (_all, open: string, kind: string, close: string) => `${open}${tables[kind]!()}\n${close}`)
    .replace(EXAMPLE, (_all, head: string, name: string, source: string, middle: string, close: string) => `${head}${source}${middle}${translations(name, source)}\n${close}`);
}

export async function runLanguageDocsCli(argv: readonly string[], io: CliIo): Promise<number> {
  const file = { script: 'docs:language', path: 'docs/language.md', description: 'regenerate the generated parts of docs/language.md', render: renderLanguageDocs };
  return runGeneratedFileCli(file, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runLanguageDocsCli);
