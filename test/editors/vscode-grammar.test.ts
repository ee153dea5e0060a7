// The VS Code grammar (editors/vscode/syntaxes/policy.tmLanguage.json), loaded with the engine VS Code
// itself uses (vscode-textmate over the Oniguruma WebAssembly build):
//
// - it is what scripts/vscode-grammar.ts makes of the locale tables today (`npm run -s editors:grammar`);
// - it agrees with the project's lexer on every source of the conformance corpus and of the built-in
//   policy library (policies/), character by character. The criterion, for every UTF-16 unit that is
//   not white space (space, tab, U+3000, CR, the byte-order mark):
//     * its scopes hold something besides `source.policy` and `meta.*` (no unknown token);
//     * the scope family matches what the lexer made of that unit: a keyword token → `keyword.`,
//       `constant.language.` or `storage.type.`; a name → `variable.`, `entity.name.` or
//       `support.function.`; a number → `constant.numeric.`; a string → `string.`; a comment →
//       `comment.`; `.` that ends a statement → `punctuation.terminator`, any other `.` →
//       `punctuation.accessor`; `:` `,` `()` `[]` → `punctuation.`; symbol operators → `keyword.operator.`;
//     * `invalid.illegal.` is allowed, and only allowed, where the lexer reports a diagnostic on that
//       unit (a character outside any token, a malformed number or escape, a bad backtick name).
//   Two places legitimately differ from the lexer's token kind: the words of a time limit are names to
//   the lexer and keywords to the grammar on an `Await` line (the parser reads them there), and before
//   any module header the grammar knows every locale's keywords while the lexer knows one.
// - every spelling of every keyword of every locale is one token with a keyword scope, in its locale.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as oniguruma from 'vscode-oniguruma';
import { INITIAL, parseRawGrammar, Registry, type IGrammar, type StateStack } from 'vscode-textmate';
import { POLICY_GRAMMAR, renderPolicyGrammar } from '../../scripts/vscode-grammar.js';
import { detectLocale, SUPPORTED_LOCALES, type Locale } from '../../src/language/index.js';
import { tokenize } from '../../src/language/lexer/index.js';
import { CONCEPTS, GERMAN_ASCII_SPELLINGS, getKeywordIndex, keywordKey, LOCALE_SYNTAXES } from '../../src/language/locales/index.js';
import { canonicalLocale, loadCaseFiles } from '../conformance/case-file.js';

const committed = readFileSync(POLICY_GRAMMAR, 'utf8');
let grammar: IGrammar;

beforeAll(async () => {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => (scopeName === 'source.policy' ? parseRawGrammar(committed, POLICY_GRAMMAR) : null),
  });
  const loaded = await registry.loadGrammar('source.policy');
  if (!loaded) throw new Error('the grammar did not load');
  grammar = loaded;
});

/** The scopes of every UTF-16 unit of `text`. */
function scopesOf(text: string): string[][] {
  const out: string[][] = new Array<string[]>(text.length).fill([]);
  let state: StateStack = INITIAL;
  let offset = 0;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const result = grammar.tokenizeLine(line, state);
    for (const token of result.tokens) {
      for (let i = token.startIndex; i < Math.min(token.endIndex, line.length); i++) out[offset + i] = token.scopes;
    }
    state = result.ruleStack;
    offset += rawLine.length + 1;
  }
  return out;
}

const WHITE_SPACE = new Set([' ', '\t', '\u3000', '\r', '\n', '\ufeff']);
const has = (scopes: readonly string[], prefix: string): boolean => scopes.some((scope) => scope.startsWith(prefix));
const hasAny = (scopes: readonly string[], prefixes: readonly string[]): boolean => prefixes.some((prefix) => has(scopes, prefix));
const meaningful = (scopes: readonly string[]): boolean => scopes.some((scope) => scope !== 'source.policy' && !scope.startsWith('meta.'));

const KEYWORD = ['keyword.', 'constant.language.', 'storage.type.'];
const NAME = ['variable.', 'entity.name.', 'support.function.'];
const EXPECTED: Record<string, readonly string[]> = {
  keyword: KEYWORD,
  ident: NAME,
  int: ['constant.numeric.'],
  float: ['constant.numeric.'],
  string: ['string.'],
  comment: ['comment.'],
  term: ['punctuation.terminator.'],
  dot: ['punctuation.accessor.'],
  colon: ['punctuation.separator.'],
  comma: ['punctuation.separator.'],
  lparen: ['punctuation.section.'],
  rparen: ['punctuation.section.'],
  lbracket: ['punctuation.section.'],
  rbracket: ['punctuation.section.'],
};
const expectedFor = (kind: string): readonly string[] => EXPECTED[kind] ?? ['keyword.operator.'];

/** Every disagreement between the grammar and the lexer on `text`, as readable lines (empty when they agree). */
function disagreements(text: string, locale: Locale): string[] {
  const scopes = scopesOf(text);
  const lexed = tokenize(text, locale);
  const kinds = new Array<string | null>(text.length).fill(null);
  const durationWord = new Array<boolean>(text.length).fill(false);
  const durationKeys = new Set(
    Object.values(LOCALE_SYNTAXES[locale].durations)
      .flat()
      .map((word) => keywordKey(word, LOCALE_SYNTAXES[locale])),
  );
  for (const token of lexed.tokens) {
    for (let i = token.start; i < token.end; i++) {
      kinds[i] = token.kind;
      durationWord[i] = token.kind === 'ident' && durationKeys.has(keywordKey(token.text, LOCALE_SYNTAXES[locale]));
    }
  }
  for (const comment of lexed.comments) for (let i = comment.start; i < comment.end; i++) kinds[i] = 'comment';
  const reported = new Array<boolean>(text.length).fill(false);
  for (const diagnostic of lexed.diagnostics) {
    if (diagnostic.span) for (let i = diagnostic.span.start; i < Math.max(diagnostic.span.end, diagnostic.span.start + 1); i++) reported[i] = true;
  }
  const problems: string[] = [];
  for (let i = 0; i < text.length && problems.length < 5; i++) {
    if (WHITE_SPACE.has(text[i]!)) continue;
    const at = scopes[i]!;
    const kind = kinds[i] ?? null;
    const where = `offset ${i} (${JSON.stringify(text.slice(Math.max(0, i - 10), i + 10))}): ${kind ?? 'no token'} got ${at.join(' ')}`;
    if (!meaningful(at)) problems.push(`unknown token at ${where}`);
    else if (has(at, 'invalid.illegal.')) {
      if (!reported[i]) problems.push(`marked invalid without a lexer diagnostic at ${where}`);
    } else if (kind === null) problems.push(`the lexer rejects what the grammar accepts at ${where}`);
    else if (hasAny(at, expectedFor(kind))) continue;
    else if (durationWord[i] && has(at, 'keyword.other.duration.')) continue;
    else if (kind === 'ident' && !has(at, 'meta.module.') && hasAny(at, KEYWORD)) continue;
    else problems.push(`scope differs from the lexer at ${where}`);
  }
  return problems;
}

describe('the VS Code grammar', () => {
  it('is what the generator makes of the locale tables (run `npm run -s editors:grammar` when this fails)', () => {
    expect(renderPolicyGrammar()).toBe(committed);
  });

  const cases = loadCaseFiles().flatMap((file) => file.cases);

  it('scopes every character of every conformance source as the lexer reads it', () => {
    expect(cases.length).toBeGreaterThan(300);
    const failures = cases.flatMap((c) => {
      const locale = detectLocale(c.text) ?? canonicalLocale(c.locale) ?? 'en-US';
      return disagreements(c.text, locale).map((problem) => `${c.file} «${c.name}»: ${problem}`);
    });
    expect(failures).toEqual([]);
  });

  it('scopes every character of the built-in policy library as the lexer reads it', () => {
    const folder = join(dirname(POLICY_GRAMMAR), '..', '..', '..', 'policies');
    const modules = readdirSync(folder).filter((name) => name.endsWith('.policy'));
    expect(modules.length).toBeGreaterThan(0);
    const failures = modules.flatMap((name) => {
      const text = readFileSync(join(folder, name), 'utf8');
      return disagreements(text, detectLocale(text) ?? 'en-US').map((problem) => `${name}: ${problem}`);
    });
    expect(failures).toEqual([]);
  });

  it('notices an unknown token and a scope that disagrees with the lexer', () => {
    expect(disagreements('Module demo.\nRule r produce Int:\n  Return 1 @ 2.\n', 'en-US')).toEqual([]);
    // `Wenn` is a keyword in de-DE only: read as en-US, the grammar (which follows the header) and the lexer disagree.
    expect(disagreements('Modul demo.\nRegel r liefert Ganzzahl:\n  Wenn wahr:\n    Liefere 1.\n', 'en-US')).not.toEqual([]);
  });

  for (const locale of SUPPORTED_LOCALES) {
    const syntax = LOCALE_SYNTAXES[locale];
    const header = `${syntax.keywords.module[0]} demo.\n`;
    /** The scopes of each unit of `line` written under a module header of `locale`. */
    const lineScopes = (line: string): string[][] => scopesOf(`${header}${line}\n`).slice(header.length, header.length + line.length);
    const isOneKeyword = (line: string): boolean => {
      const scopes = lineScopes(line);
      return scopes.every((s) => s === scopes[0]) && hasAny(scopes[0]!, KEYWORD) && has(scopes[0]!, `meta.module.${locale.toLowerCase()}.`);
    };

    it(`${locale}: every keyword spelling is one keyword token, also as the lexer's folding allows`, () => {
      for (const concept of CONCEPTS) {
        for (const spelling of syntax.keywords[concept]) {
          expect(isOneKeyword(spelling), `${concept}: ${spelling}`).toBe(true);
          expect(isOneKeyword(spelling.replaceAll(' ', '  ')), `${concept}: ${spelling} with two spaces`).toBe(true);
          if (syntax.caseInsensitive) expect(isOneKeyword(spelling.toUpperCase()), `${concept}: ${spelling.toUpperCase()}`).toBe(true);
          if (syntax.germanAsciiSpellings) {
            const ascii = Object.entries(GERMAN_ASCII_SPELLINGS).reduce((word, [letter, spelled]) => word.replaceAll(letter, spelled), spelling);
            expect(isOneKeyword(ascii), `${concept}: ${ascii}`).toBe(true);
          }
        }
      }
    });

    it(`${locale}: the words of a time limit are keywords on an Await line only`, () => {
      const within = syntax.durations.within[0]!;
      const hours = syntax.durations.hours[0]!;
      const line = `${syntax.keywords.await[0]} "signal" ${within} 2 ${hours}`;
      const scopes = lineScopes(line);
      expect(has(scopes[line.indexOf(` ${within} `) + 1]!, 'keyword.other.duration.')).toBe(true);
      expect(has(scopes[line.length - 1]!, 'keyword.other.duration.')).toBe(true);
      const elsewhere = `${syntax.keywords.let[0]} ${hours} ${syntax.keywords.be[0]} 2`;
      expect(has(lineScopes(elsewhere)[elsewhere.indexOf(hours)]!, 'variable.other.')).toBe(true);
    });

    it(`${locale}: another locale's keywords are names under this header`, () => {
      const foreign = SUPPORTED_LOCALES.filter((other) => other !== locale)
        .flatMap((other) => LOCALE_SYNTAXES[other].keywords.if)
        .filter((word) => !getKeywordIndex(locale).allWords.has(keywordKey(word, syntax)));
      expect(foreign.length).toBeGreaterThan(0);
      for (const word of foreign) expect(lineScopes(word).every((s) => has(s, 'variable.other.')), word).toBe(true);
    });
  }
});

describe('the VS Code extension manifest', () => {
  const root = join(dirname(POLICY_GRAMMAR), '..');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    main: string;
    contributes: { languages: { id: string; extensions: string[]; configuration: string }[]; grammars: { language: string; scopeName: string; path: string }[] };
  };
  const [language] = manifest.contributes.languages;
  const configuration = JSON.parse(readFileSync(join(root, language!.configuration), 'utf8')) as { indentationRules: { increaseIndentPattern: string } };

  it('contributes the generated grammar for *.policy, and its entry exists', () => {
    expect(language!.extensions).toEqual(['.policy']);
    const [contributed] = manifest.contributes.grammars;
    expect(contributed!.language).toBe(language!.id);
    expect(join(root, contributed!.path)).toBe(POLICY_GRAMMAR);
    expect(contributed!.scopeName).toBe((JSON.parse(committed) as { scopeName: string }).scopeName);
    expect(existsSync(join(root, manifest.main))).toBe(true);
  });

  it('keeps the language client out of the root package and its install', () => {
    const service = JSON.parse(readFileSync(join(root, '..', '..', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(JSON.stringify(service)).not.toContain('vscode-languageclient');
    expect(service['workspaces']).toBeUndefined();
  });

  it('indents after exactly the lines that open a block in the valid conformance sources', () => {
    const opensBlock = new RegExp(configuration.indentationRules.increaseIndentPattern);
    const indent = (line: string): number => line.length - line.trimStart().length;
    const isCode = (line: string): boolean => line.trim() !== '' && !/^\s*(#|\/\/)/.test(line);
    let headers = 0;
    for (const c of loadCaseFiles().flatMap((file) => file.cases)) {
      if (!('result' in c.expect)) continue;
      // The editor matches lines without their line end.
      const lines = c.text.split(/\r?\n/).filter(isCode);
      lines.forEach((line, i) => {
        const next = lines[i + 1];
        const opens = next !== undefined && indent(next) > indent(line);
        if (opens) headers++;
        expect(opensBlock.test(line), `${c.name}: ${line}`).toBe(opens);
      });
    }
    expect(headers).toBeGreaterThan(100);
  });
});
