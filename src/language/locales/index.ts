export { CONCEPTS, type Concept } from './concepts.js';
export type { LocaleSyntax } from './locale-syntax.js';
export { LOCALE_SYNTAXES, getLocaleSyntax } from './locale-syntaxes.js';
export { GERMAN_ASCII_SPELLINGS, keywordKey } from './keyword-key.js';
export { getKeywordIndex, type KeywordIndex, type KeywordPhrase } from './keyword-index.js';
export { normalizeCharCode } from './normalize-char.js';
export { resolveLocale } from './resolve-locale.js';
export { detectLocale, localeOfModuleKeyword } from './detect-locale.js';
export { isReservedWord } from './is-reserved-word.js';
