export { tokenize, MAX_DIAGNOSTICS } from './tokenize.js';
export type { Token, TokenKind, SourceComment, TokenizeResult } from './token.js';
export { normalizeSource } from './normalize-source.js';
export { checkSourceSize, MAX_SOURCE_BYTES } from './source-size.js';
export { syntaxDiagnostic, lineSpan } from './syntax-diagnostic.js';
export { isIdentPart, isIdentStart } from './char-classes.js';
