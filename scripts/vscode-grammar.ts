/**
 * Writes the TextMate grammar of the VS Code extension (editors/vscode) from the locale tables, so a
 * keyword has one home:
 *   npm run -s editors:grammar            rewrites editors/vscode/syntaxes/policy.tmLanguage.json
 *   npm run -s editors:grammar -- --check exits 1 when it is out of date (the test suite checks too)
 *
 * A file is highlighted in the locale of its module header (`Module`, `Modul`, `模块`), as the
 * compiler reads it: the header opens a section that runs to the end of the file and knows only that
 * locale's keywords. Lines before any header (only comments, in a valid module) know every locale's.
 * Character classes follow the lexer's normalisation (full-width `：` is `:`, `。` is `.`, …).
 */
import { BUILTIN_NAMES } from '../src/language/builtins/index.js';
import { IDENT_PART_CLASSES, IDENT_START_CLASSES } from '../src/language/lexer/index.js';
import { CONCEPTS, GERMAN_ASCII_SPELLINGS, LOCALE_SYNTAXES, normalizeCharCode, type Concept, type LocaleSyntax } from '../src/language/locales/index.js';
import { isEntryPoint, runAsEntryPoint, type CliIo } from './cli-io.js';
import { repositoryPath, runGeneratedFileCli } from './generated-file.js';

const GRAMMAR_PATH = 'editors/vscode/syntaxes/policy.tmLanguage.json';
export const POLICY_GRAMMAR = repositoryPath(GRAMMAR_PATH);

const SCOPE = 'policy';

/** The scope of each keyword concept: themes colour these families. */
const CONCEPT_SCOPES: Readonly<Record<Concept, string>> = {
  module: 'keyword.other.declaration',
  define: 'keyword.other.declaration',
  rule: 'keyword.other.declaration',
  workflow: 'keyword.other.declaration',
  step: 'keyword.other.declaration',
  has: 'keyword.other',
  as: 'keyword.other',
  enumOneOf: 'keyword.other',
  given: 'keyword.other',
  produce: 'keyword.other',
  let: 'keyword.other',
  be: 'keyword.other',
  with: 'keyword.other',
  setTo: 'keyword.other',
  compensateWith: 'keyword.other',
  return: 'keyword.control',
  if: 'keyword.control',
  elseIf: 'keyword.control',
  else: 'keyword.control',
  match: 'keyword.control',
  when: 'keyword.control',
  forEach: 'keyword.control',
  in: 'keyword.control',
  inEnd: 'keyword.control',
  fail: 'keyword.control',
  await: 'keyword.control',
  and: 'keyword.operator.word',
  or: 'keyword.operator.word',
  not: 'keyword.operator.word',
  eq: 'keyword.operator.word',
  ne: 'keyword.operator.word',
  lt: 'keyword.operator.word',
  gt: 'keyword.operator.word',
  ge: 'keyword.operator.word',
  le: 'keyword.operator.word',
  between: 'keyword.operator.word',
  betweenAnd: 'keyword.operator.word',
  oneOf: 'keyword.operator.word',
  contains: 'keyword.operator.word',
  plus: 'keyword.operator.word',
  minus: 'keyword.operator.word',
  times: 'keyword.operator.word',
  dividedBy: 'keyword.operator.word',
  modulo: 'keyword.operator.word',
  true: 'constant.language.boolean',
  false: 'constant.language.boolean',
  int: 'storage.type',
  float: 'storage.type',
  text: 'storage.type',
  bool: 'storage.type',
  listOf: 'storage.type',
};
const DURATION_SCOPE = 'keyword.other.duration';

const scoped = (scope: string): string => `${scope}.${SCOPE}`;

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Every character the lexer reads as another one, by what it is read as. */
const TWINS = new Map<number, string>();
for (let unit = 0x80; unit <= 0xffff; unit++) {
  const read = normalizeCharCode(unit);
  if (read !== unit) TWINS.set(read, `${TWINS.get(read) ?? ''}\\x{${unit.toString(16).toUpperCase()}}`);
}

/** The characters other than `c` that the lexer reads as `c` (full-width forms, CJK punctuation), as regex escapes. */
const twins = (c: string): string => TWINS.get(c.charCodeAt(0)) ?? '';

/** `c` and its twins. */
function charClass(c: string): string {
  const more = twins(c);
  return more === '' ? escapeRegex(c) : `[${escapeRegex(c)}${more}]`;
}

/** A sequence of characters, each matching its normalisation twins. */
const chars = (text: string): string => [...text].map(charClass).join('');

const SPACE = `[ \\t${twins(' ')}]`;
/** Identifier characters as the lexer reads them (it takes all of U+4E00–U+9FFF without asking Unicode). */
const IDENT_START = `[${IDENT_START_CLASSES}_\\x{4E00}-\\x{9FFF}]`;
const IDENT_PART = `[${IDENT_PART_CLASSES}_\\x{4E00}-\\x{9FFF}]`;
const IDENT = `${IDENT_START}${IDENT_PART}*`;
const BEFORE_WORD = `(?<!${IDENT_PART})`;
const AFTER_WORD = `(?!${IDENT_PART})`;
const DIGIT = `[0-9${[...'0123456789'].map(twins).join('')}]`;
const COMMENT_START = `(?:${charClass('#')}|${chars('//')})`;
/** A `.` that ends a statement: white space, a comment or the end of the line follows. */
const TERMINATOR = `${charClass('.')}(?=${SPACE}|$|${COMMENT_START})`;

/** One keyword word: letter case and (de-DE) the ASCII spellings ä→ae, ö→oe, ü→ue, ß→ss as the lexer folds them. */
function wordPattern(word: string, syntax: LocaleSyntax): string {
  return [...(syntax.caseInsensitive ? word.toLowerCase() : word)]
    .map((c) => {
      const ascii = syntax.germanAsciiSpellings ? GERMAN_ASCII_SPELLINGS[c] : undefined;
      return ascii === undefined ? charClass(c) : `(?:${c}|${chars(ascii)})`;
    })
    .join('');
}

function spellingPattern(spelling: string, syntax: LocaleSyntax): string {
  const words = spelling.split(' ').map((word) => wordPattern(word, syntax));
  const body = words.join(`${SPACE}+`);
  return syntax.caseInsensitive ? `(?i:${body})` : body;
}

interface Spelling {
  readonly text: string;
  readonly pattern: string;
  readonly scope: string;
}

function keywordSpellings(syntaxes: readonly LocaleSyntax[]): Spelling[] {
  const seen = new Set<string>();
  const spellings: Spelling[] = [];
  for (const syntax of syntaxes) {
    for (const concept of CONCEPTS) {
      for (const text of syntax.keywords[concept]) {
        const pattern = spellingPattern(text, syntax);
        // One spelling can serve several concepts (`mit` is `has` and `with`): its first concept names it.
        if (seen.has(pattern)) continue;
        seen.add(pattern);
        spellings.push({ text, pattern, scope: CONCEPT_SCOPES[concept] });
      }
    }
  }
  return spellings;
}

/**
 * The keyword patterns, longest first as the lexer matches them (`is not` before `is`, `Otherwise
 * if` before `Otherwise`): patterns tried at the same position win in order.
 */
function keywordPatterns(syntaxes: readonly LocaleSyntax[]): object[] {
  const sorted = keywordSpellings(syntaxes).sort(
    // Code-unit order last, not localeCompare: the generated file must not depend on the machine's locale.
    (a, b) => b.text.split(' ').length - a.text.split(' ').length || b.text.length - a.text.length || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0),
  );
  const runs: { scope: string; patterns: string[] }[] = [];
  for (const spelling of sorted) {
    const last = runs.at(-1);
    if (last?.scope === spelling.scope) last.patterns.push(spelling.pattern);
    else runs.push({ scope: spelling.scope, patterns: [spelling.pattern] });
  }
  return runs.map(({ scope, patterns }) => ({
    match: `${BEFORE_WORD}(?:${patterns.join('|')})${AFTER_WORD}`,
    name: scoped(scope),
  }));
}

/** The alternation of the spellings `pick` takes from each locale. */
const alternation = (syntaxes: readonly LocaleSyntax[], pick: (syntax: LocaleSyntax) => readonly string[]): string =>
  syntaxes.flatMap((syntax) => pick(syntax).map((spelling) => spellingPattern(spelling, syntax))).join('|');

/** `Rule name`, `Workflow name`, `Define Name`: the declared name gets an entity scope. */
function declarationPatterns(syntaxes: readonly LocaleSyntax[]): object[] {
  const declared = (concepts: readonly Concept[], scope: string): object => ({
    match: `${BEFORE_WORD}(${alternation(syntaxes, (syntax) => concepts.flatMap((concept) => syntax.keywords[concept]))})${SPACE}+(${IDENT})`,
    captures: { 1: { name: scoped(CONCEPT_SCOPES[concepts[0]!]) }, 2: { name: scoped(scope) } },
  });
  return [declared(['rule', 'workflow'], 'entity.name.function'), declared(['define'], 'entity.name.type')];
}

/** `Await "signal" within 48 hours`: the words of a time limit are keywords only on an Await line. */
function awaitPattern(syntaxes: readonly LocaleSyntax[], section: string): object {
  const durations = alternation(syntaxes, (syntax) => Object.values(syntax.durations).flat());
  return {
    begin: `${BEFORE_WORD}(${alternation(syntaxes, (syntax) => syntax.keywords.await)})${AFTER_WORD}`,
    beginCaptures: { 1: { name: scoped(CONCEPT_SCOPES.await) } },
    end: '$',
    patterns: [{ match: `${BEFORE_WORD}(?:${durations})${AFTER_WORD}`, name: scoped(DURATION_SCOPE) }, { include: `#${section}` }],
  };
}

/** What every locale shares: comments, text, numbers, names, operators and punctuation. */
function commonPatterns(): Record<string, object> {
  const string = (open: string, close: string, name: string): object => ({
    begin: open,
    end: `${close}|$`,
    name: scoped(name),
    beginCaptures: { 0: { name: scoped('punctuation.definition.string.begin') } },
    endCaptures: { 0: { name: scoped('punctuation.definition.string.end') } },
    patterns: [{ include: '#escape' }],
  });
  const quote = charClass('"');
  return {
    comment: {
      patterns: [
        {
          match: `(${charClass('#')}).*$`,
          name: scoped('comment.line.number-sign'),
          captures: { 1: { name: scoped('punctuation.definition.comment') } },
        },
        {
          match: `(${chars('//')}).*$`,
          name: scoped('comment.line.double-slash'),
          captures: { 1: { name: scoped('punctuation.definition.comment') } },
        },
      ],
    },
    escape: {
      patterns: [
        { match: '\\\\(?:["\\\\nt]|u\\{[0-9A-Fa-f]{1,6}\\})', name: scoped('constant.character.escape') },
        { match: '\\\\.?', name: scoped('invalid.illegal.escape') },
      ],
    },
    string: {
      patterns: [
        string(quote, quote, 'string.quoted.double'),
        string('\\x{201C}', '\\x{201D}', 'string.quoted.double'),
        string('\\x{300C}', '\\x{300D}', 'string.quoted.other.corner'),
      ],
    },
    name: {
      patterns: [
        { match: `${charClass('`')}${IDENT}${charClass('`')}`, name: scoped('variable.other.quoted') },
        { match: `${charClass('`')}[^\`\\x{FF40}]*${charClass('`')}?`, name: scoped('invalid.illegal.name') },
        { match: `${BEFORE_WORD}(?:${BUILTIN_NAMES.map(escapeRegex).join('|')})(?=${SPACE}*${charClass('(')})`, name: scoped('support.function.builtin') },
        { match: `${IDENT}(?=${SPACE}*${charClass('(')})`, name: scoped('entity.name.function.call') },
        { match: IDENT, name: scoped('variable.other') },
      ],
    },
    number: {
      patterns: [
        // Letters glued to a number (`18岁`) make the whole word invalid, as in the lexer.
        { match: `(?>${DIGIT}(?:${DIGIT}|_)*(?:${charClass('.')}${DIGIT}(?:${DIGIT}|_)*)?)${IDENT_PART}+`, name: scoped('invalid.illegal.number') },
        { match: `${DIGIT}(?:${DIGIT}|_)*${charClass('.')}${DIGIT}(?:${DIGIT}|_)*`, name: scoped('constant.numeric.float') },
        { match: `${DIGIT}(?:${DIGIT}|_)*`, name: scoped('constant.numeric.integer') },
      ],
    },
    operator: {
      patterns: [
        { match: `${chars('==')}|${chars('!=')}|${chars('<=')}|${chars('>=')}|${charClass('<')}|${charClass('>')}`, name: scoped('keyword.operator.comparison') },
        { match: charClass('='), name: scoped('keyword.operator.assignment') },
        { match: ['+', '-', '*', '/', '%'].map(charClass).join('|'), name: scoped('keyword.operator.arithmetic') },
      ],
    },
    punctuation: {
      patterns: [
        { match: TERMINATOR, name: scoped('punctuation.terminator') },
        { match: charClass('.'), name: scoped('punctuation.accessor') },
        { match: charClass(':'), name: scoped('punctuation.separator.colon') },
        { match: charClass(','), name: scoped('punctuation.separator.comma') },
        { match: charClass('('), name: scoped('punctuation.section.parens.begin') },
        { match: charClass(')'), name: scoped('punctuation.section.parens.end') },
        { match: charClass('['), name: scoped('punctuation.section.brackets.begin') },
        { match: charClass(']'), name: scoped('punctuation.section.brackets.end') },
      ],
    },
    // The lexer rejects anything else (`!` alone, `@`, `$`, …).
    invalid: { match: `[^\\r\\n\\x{FEFF} \\t${twins(' ')}]`, name: scoped('invalid.illegal.character') },
  };
}

/** The patterns of a locale section (or of the lines before any module header), in priority order. */
function sectionPatterns(syntaxes: readonly LocaleSyntax[], section: string): object {
  return {
    patterns: [
      { include: '#comment' },
      { include: '#string' },
      { include: '#number' },
      awaitPattern(syntaxes, section),
      ...declarationPatterns(syntaxes),
      ...keywordPatterns(syntaxes),
      { include: '#name' },
      { include: '#operator' },
      { include: '#punctuation' },
      { include: '#invalid' },
    ],
  };
}

const sectionName = (syntax: LocaleSyntax): string => `locale-${syntax.tag.toLowerCase()}`;

/** The grammar as an object (TextMate JSON form). */
function buildPolicyGrammar(): object {
  const syntaxes = Object.values(LOCALE_SYNTAXES);
  const repository: Record<string, object> = { ...commonPatterns(), 'any-locale': sectionPatterns(syntaxes, 'any-locale') };
  const sections = syntaxes.map((syntax) => {
    const name = sectionName(syntax);
    repository[name] = sectionPatterns([syntax], name);
    return {
      // The module header at the start of a line (after a byte-order mark) opens its locale for the rest of the file.
      begin: `^\\x{FEFF}?${SPACE}*(${alternation([syntax], (own) => own.keywords.module)})${AFTER_WORD}`,
      beginCaptures: { 1: { name: scoped(CONCEPT_SCOPES.module) } },
      end: '(?!)',
      name: `meta.module.${syntax.tag.toLowerCase()}.${SCOPE}`,
      patterns: [{ include: `#${name}` }],
    };
  });
  return {
    name: 'Policy',
    scopeName: `source.${SCOPE}`,
    fileTypes: [SCOPE],
    comment: 'Generated by scripts/vscode-grammar.ts from the locale tables: do not edit; run `npm run -s editors:grammar`.',
    patterns: [{ include: '#comment' }, ...sections, { include: '#any-locale' }],
    repository,
  };
}

/** The grammar file's text. */
export function renderPolicyGrammar(): string {
  return `${JSON.stringify(buildPolicyGrammar(), null, 2)}\n`;
}

export async function runVscodeGrammarCli(argv: readonly string[], io: CliIo): Promise<number> {
  const file = { script: 'editors:grammar', path: GRAMMAR_PATH, description: 'regenerate the VS Code grammar from the locale tables', render: renderPolicyGrammar };
  return runGeneratedFileCli(file, argv, io);
}

if (isEntryPoint(import.meta.url)) runAsEntryPoint(runVscodeGrammarCli);
