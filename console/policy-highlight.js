// Syntax highlighting of policy source, line by line, with the keywords of the source's locale
// (policy-keywords.js, which the service writes from the lexer's tables). It mirrors the lexer's word rules closely enough to colour, not to parse:
// comments (`#`, `//`), text in quotes, numbers, backtick names and keywords (whole words, the
// longest spelling first). Every token becomes a text node inside a span: no HTML is ever parsed.
import { h } from './dom.js';
import { GERMAN_ASCII_SPELLINGS, IDENTIFIER_CLASSES, POLICY_KEYWORDS } from './policy-keywords.js';

const WORD = new RegExp(`[${IDENTIFIER_CLASSES.start}_][${IDENTIFIER_CLASSES.part}_]*`, 'uy');
const NUMBER = /\d[\d_]*(?:\.\d[\d_]*)?/y;
const BLANKS = /[ \t]+/y;
const CLOSING_QUOTE = { '"': '"', '\u201c': '\u201d', '\u300c': '\u300d' };

/** The keyword table of a stored locale tag (`en-US`, `de-de`, `zh_CN`…), or null. */
function keywordsOfLocale(locale) {
  const wanted = String(locale ?? '').replace('_', '-').toLowerCase();
  const tag = Object.keys(POLICY_KEYWORDS).find((known) => known.toLowerCase() === wanted || known.slice(0, 2).toLowerCase() === wanted);
  return tag ? POLICY_KEYWORDS[tag] : null;
}

const GERMAN_SPECIAL = new RegExp(`[${Object.keys(GERMAN_ASCII_SPELLINGS).join('')}]`, 'g');

function foldGerman(word) {
  return word.replace(GERMAN_SPECIAL, (letter) => GERMAN_ASCII_SPELLINGS[letter]);
}

/** Spellings by their first word's key, each as its words' keys, the longest first. */
function phraseIndex(table) {
  const key = (word) => {
    const cased = table.caseInsensitive ? word.toLowerCase() : word;
    return table.germanAsciiSpellings ? foldGerman(cased) : cased;
  };
  const byFirst = new Map();
  for (const spelling of table.spellings) {
    const words = spelling.split(' ').map(key);
    if (!byFirst.has(words[0])) byFirst.set(words[0], []);
    byFirst.get(words[0]).push(words);
  }
  for (const phrases of byFirst.values()) phrases.sort((a, b) => b.length - a.length);
  return { key, byFirst };
}

const indexes = new Map();
function indexFor(locale) {
  if (!indexes.has(locale)) {
    const table = keywordsOfLocale(locale);
    indexes.set(locale, table ? phraseIndex(table) : null);
  }
  return indexes.get(locale);
}

function matchAt(pattern, line, at) {
  pattern.lastIndex = at;
  const match = pattern.exec(line);
  return match ? match[0] : null;
}

/** Where the keyword starting with the word at `at` ends, or -1 when the word is a name. */
function keywordEnd(index, line, at, firstWord) {
  for (const phrase of index.byFirst.get(index.key(firstWord)) ?? []) {
    let end = at + firstWord.length;
    let matched = true;
    for (const expected of phrase.slice(1)) {
      const blanks = matchAt(BLANKS, line, end);
      const word = blanks && matchAt(WORD, line, end + blanks.length);
      if (!word || index.key(word) !== expected) {
        matched = false;
        break;
      }
      end += blanks.length + word.length;
    }
    if (matched) return end;
  }
  return -1;
}

/** The tokens of one line: `{kind, text}` with kind keyword, name, text, number, comment or plain. */
export function lineTokens(line, locale) {
  const index = indexFor(locale);
  const tokens = [];
  const push = (kind, text) => {
    const last = tokens[tokens.length - 1];
    if (last && last.kind === kind && kind === 'plain') last.text += text;
    else tokens.push({ kind, text });
  };
  let at = 0;
  while (at < line.length) {
    const c = line[at];
    if (c === '#' || line.startsWith('//', at)) {
      push('comment', line.slice(at));
      break;
    }
    if (Object.hasOwn(CLOSING_QUOTE, c)) {
      let end = at + 1;
      while (end < line.length && line[end] !== CLOSING_QUOTE[c]) end += line[end] === '\\' ? 2 : 1;
      end = Math.min(end + 1, line.length);
      push('text', line.slice(at, end));
      at = end;
      continue;
    }
    if (c === '`') {
      const close = line.indexOf('`', at + 1);
      const end = close < 0 ? line.length : close + 1;
      push('name', line.slice(at, end));
      at = end;
      continue;
    }
    const number = matchAt(NUMBER, line, at);
    if (number) {
      push('number', number);
      at += number.length;
      continue;
    }
    const word = matchAt(WORD, line, at);
    if (word) {
      const end = index ? keywordEnd(index, line, at, word) : -1;
      if (end >= 0) {
        push('keyword', line.slice(at, end));
        at = end;
      } else {
        push('name', word);
        at += word.length;
      }
      continue;
    }
    push('plain', c);
    at += 1;
  }
  return tokens;
}

/** One line as a span of coloured spans; plain text and names stay unwrapped text. */
export function highlightedLine(line, locale) {
  return h(
    'span',
    { className: 'source-code' },
    lineTokens(line, locale).map((token) => (token.kind === 'plain' || token.kind === 'name' ? token.text : h('span', { className: `tok-${token.kind}` }, token.text))),
  );
}

/** Whether the console can highlight the keywords of this locale. */
export function canHighlight(locale) {
  return indexFor(locale) !== null;
}
