/**
 * `policy lsp --stdio` as a process, driven by a real LSP client: diagnostics, hover, completion,
 * definition, symbols, formatting and the "Show this module in …" action, in every locale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, CompletionItem, DocumentSymbol, Hover, Location, Position, TextEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { format, parse, SUPPORTED_LOCALES, type Locale } from '../../language/index.js';
import { KEYWORD_MEANINGS } from '../language-texts.js';
import { startLspClient, type LspClient } from './lsp-client.js';

const EN_SOURCE = `Module insurance.demo.

Define Driver has name as Text, age as Int, claims as List of Int, usage as Usage.
Define Usage as one of Personal, Commercial.
Define Quote has premium as Float, notes as List of Text.

Rule basePremium given driver as Driver, produce Float:
  Let claimCount be length(driver.claims).
  If driver.age is less than 25:
    Return 800.0 + claimCount * 100.
  Return 500.0.

Rule premium given driver as Driver, produce Quote:
  Return Quote with premium set to basePremium(driver), notes set to [driver.name].

Rule eligible given driver as Driver, produce Bool:
  Return driver.age is at least 18.

Rule isPersonal given driver as Driver, produce Bool:
  Return driver.usage is Personal.

Workflow quoteDriver given driver as Driver:
  Step check: eligible(driver).
`;

/** The module in canonical layout in each locale, printed by the formatter. */
const SOURCES = Object.fromEntries(SUPPORTED_LOCALES.map((locale) => [locale, format(parse(EN_SOURCE, 'en-US').module!, locale)])) as Record<Locale, string>;

/** What each locale writes where the texts differ. */
const WORDS: Record<Locale, { rule: string; enumOneOf: string; letWord: string; ifWord: string; header: string; intWord: string; textWord: string; listOf: string; claimCount: string; age: string }> = {
  'en-US': {
    rule: 'Rule',
    enumOneOf: 'as one of',
    letWord: 'Let',
    ifWord: 'If',
    header: 'Rule basePremium given driver as Driver, produce Float',
    intWord: 'Int',
    listOf: 'List of',
    textWord: 'Text',
    claimCount: 'claimCount as Int',
    age: 'age as Int',
  },
  'zh-CN': {
    rule: '规则',
    enumOneOf: '为以下之一',
    letWord: '令',
    ifWord: '如果',
    header: '规则 basePremium 给定 driver 为 Driver，产出 小数',
    intWord: '整数',
    listOf: '列表',
    textWord: '文本',
    claimCount: 'claimCount 为 整数',
    age: 'age 为 整数',
  },
  'de-DE': {
    rule: 'Regel',
    enumOneOf: 'als eines von',
    letWord: 'Sei',
    ifWord: 'Wenn',
    header: 'Regel basePremium gegeben driver als Driver, liefert Kommazahl',
    intWord: 'Ganzzahl',
    listOf: 'Liste von',
    textWord: 'Text',
    claimCount: 'claimCount als Ganzzahl',
    age: 'age als Ganzzahl',
  },
};

/** The position of the `occurrence`-th (0-based) `needle` in `text`, plus `shift` characters. */
function positionOf(text: string, needle: string, occurrence = 0, shift = 0): Position {
  let offset = -1;
  for (let i = 0; i <= occurrence; i++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset < 0) throw new Error(`\`${needle}\` #${occurrence} not in the text`);
  }
  return TextDocument.create('x', 'policy', 1, text).positionAt(offset + shift);
}

function textAt(text: string, range: { start: Position; end: Position }): string {
  const document = TextDocument.create('x', 'policy', 1, text);
  return text.slice(document.offsetAt(range.start), document.offsetAt(range.end));
}

let client: LspClient;

beforeAll(async () => {
  client = await startLspClient();
});

afterAll(async () => {
  expect(await client.stop()).toBe(0);
});

describe.each(SUPPORTED_LOCALES)('a module in %s', (locale) => {
  const uri = `file:///workspace/insurance-${locale}.policy`;
  const source = SOURCES[locale];
  const words = WORDS[locale];
  const hoverAt = async (position: Position) => (await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position }))?.contents;
  const hoverText = async (position: Position) => {
    const contents = await hoverAt(position);
    return typeof contents === 'object' && contents !== null && 'value' in contents ? contents.value : '';
  };
  const definitionAt = (position: Position) => client.request<Location | null>('textDocument/definition', { textDocument: { uri }, position });
  const completionAt = (position: Position) => client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position });

  it('publishes the compiler\'s diagnostics on open and on every change, with code, range and help', async () => {
    expect((await client.open(uri, source)).diagnostics).toEqual([]);
    const broken = source.replace(/claimCount (\S+) 100/, 'claimCont $1 100');
    expect(broken).not.toBe(source);
    const [diagnostic, ...others] = (await client.change(uri, 2, broken)).diagnostics;
    expect(others).toEqual([]);
    expect(diagnostic).toMatchObject({ code: 'PL2001', severity: 1, source: 'policy' });
    expect(textAt(broken, diagnostic!.range)).toBe('claimCont');
    expect(diagnostic!.message).toContain('`claimCount`');
    expect((await client.change(uri, 3, source)).diagnostics).toEqual([]);
  });

  it('hovers a keyword with its meaning, in the locale\'s word', async () => {
    const text = await hoverText(positionOf(source, words.rule));
    expect(text).toContain(`**${words.rule}**`);
    expect(text).toContain(KEYWORD_MEANINGS.rule);
    // A meaning that names another keyword names it in the document's locale.
    expect(await hoverText(positionOf(source, 'claimCount ', 0, 'claimCount '.length))).toContain(`separates a \`${words.letWord}\` variable from its value`);
  });

  it('hovers a rule call with the rule\'s signature in the locale', async () => {
    expect(await hoverText(positionOf(source, 'basePremium(driver)', 0, 2))).toBe(`\`\`\`policy\n${words.header}\n\`\`\``);
  });

  it('hovers a built-in with its signature in the locale\'s type words and its description', async () => {
    const text = await hoverText(positionOf(source, 'length('));
    expect(text).toContain(`length(list or text) → ${words.intWord}`);
    expect(text).toContain('the number of elements of a list or characters of a text');
  });

  it('hovers a variable and a field with their types', async () => {
    expect(await hoverText(positionOf(source, 'claimCount', 1))).toContain(words.claimCount);
    expect(await hoverText(positionOf(source, 'driver.age', 0, 'driver.'.length))).toContain(words.age);
  });

  it('hovers an enum variant with its enum, and goes to the variant', async () => {
    const variant = positionOf(source, 'Personal', 2); // 0: its declaration, 1: inside `isPersonal`
    expect(await hoverText(variant)).toContain(`Usage ${words.enumOneOf} Personal`);
    expect((await definitionAt(variant))!.range.start).toEqual(positionOf(source, 'Personal'));
  });

  it('completes the locale\'s keywords, the built-ins and the module\'s rules and types', async () => {
    const labels = (await completionAt(positionOf(source, words.ifWord))).map((item) => item.label);
    expect(labels).toEqual(expect.arrayContaining([words.ifWord, words.rule, 'length', 'join', 'basePremium', 'premium', 'Driver', 'Usage', 'quoteDriver']));
    for (const other of SUPPORTED_LOCALES.filter((l) => l !== locale)) {
      if (WORDS[other].ifWord !== words.ifWord) expect(labels).not.toContain(WORDS[other].ifWord);
    }
  });

  it('completes the fields of a record after a dot, also while the text does not check', async () => {
    // `driver.na` is an unknown field (PL2016): the fields come from the latest text that checked.
    const typing = source.replace('driver.claims', 'driver.na');
    expect(typing).not.toBe(source);
    expect((await client.change(uri, 4, typing)).diagnostics.map((d) => d.code)).toContain('PL2016');
    const items = await completionAt(positionOf(typing, 'driver.na', 0, 'driver.na'.length));
    expect(items.map((item) => [item.label, item.detail])).toEqual([
      ['name', words.textWord],
      ['age', words.intWord],
      ['claims', `${words.listOf} ${words.intWord}`],
      ['usage', 'Usage'],
    ]);
    expect((await client.change(uri, 5, source)).diagnostics).toEqual([]);
  });

  it('goes to the definition of a rule, a type and a field', async () => {
    const rule = await definitionAt(positionOf(source, 'basePremium(driver)'));
    expect(rule?.uri).toBe(uri);
    expect(rule!.range.start).toEqual(positionOf(source, 'basePremium'));
    expect(textAt(source, rule!.range)).toBe('basePremium');
    const type = await definitionAt(positionOf(source, 'Usage'));
    expect(type!.range.start).toEqual(positionOf(source, 'Usage', 1));
    expect((await definitionAt(positionOf(source, 'Quote', 1)))!.range.start).toEqual(positionOf(source, 'Quote'));
    const field = await definitionAt(positionOf(source, 'driver.age', 0, 'driver.'.length));
    expect(field!.range.start).toEqual(positionOf(source, 'age'));
  });

  it('lists the rules, types and workflows as document symbols', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbols.map((s) => [s.name, s.kind])).toEqual([
      ['Driver', 23],
      ['Usage', 10],
      ['Quote', 23],
      ['basePremium', 12],
      ['premium', 12],
      ['eligible', 12],
      ['isPersonal', 12],
      ['quoteDriver', 24],
    ]);
    expect(symbols[0]!.children!.map((c) => c.name)).toEqual(['name', 'age', 'claims', 'usage']);
    expect(symbols[1]!.children!.map((c) => c.name)).toEqual(['Personal', 'Commercial']);
    expect(symbols[7]!.children!.map((c) => c.name)).toEqual(['check']);
    expect(symbols[3]!.detail).toBe(words.header);
  });

  it('formats the document into the canonical layout, and refuses a module with syntax errors', async () => {
    const untidy = source.replace(/\n\n/g, '\n\n\n').replaceAll('500.0', '500.0 ');
    await client.change(uri, 6, untidy);
    const edits = await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
    expect(edits).toHaveLength(1);
    expect(TextDocument.applyEdits(TextDocument.create(uri, 'policy', 6, untidy), edits)).toBe(source);
    await client.change(uri, 7, source);
    expect(await client.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
    await client.change(uri, 8, source.replace('500.0', '500.0 +'));
    await expect(client.request('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } })).rejects.toThrow(/the module cannot be printed: PL1\d{3} /);
    await client.change(uri, 9, source);
  });

  it('offers to show the module in the other locales, and the command returns it printed there', async () => {
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [] },
    });
    const others = SUPPORTED_LOCALES.filter((l) => l !== locale);
    expect(actions.map((a) => a.title)).toEqual(others.map((l) => `Show this module in ${l}`));
    for (const [index, target] of others.entries()) {
      const { command, arguments: args } = actions[index]!.command!;
      expect(await client.request('workspace/executeCommand', { command, arguments: args })).toEqual({ uri, locale: target, text: SOURCES[target] });
    }
  });
});

describe('requests that cannot be answered', () => {
  it('refuses the command for a document that is not open or a locale that is not supported', async () => {
    const uri = 'file:///workspace/open.policy';
    await client.open(uri, SOURCES['en-US']);
    await expect(client.request('workspace/executeCommand', { command: 'policy.showModuleInLocale', arguments: ['file:///nowhere.policy', 'de-DE'] })).rejects.toThrow(/URI of an open document/);
    await expect(client.request('workspace/executeCommand', { command: 'policy.showModuleInLocale', arguments: [uri, 'fr-FR'] })).rejects.toThrow(/en-US, zh-CN, de-DE/);
  });
});
