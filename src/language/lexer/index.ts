export { tokenize, MAX_DIAGNOSTICS } from './tokenize.js';
export type { Token, TokenKind, SourceComment, TokenizeResult } from './token.js';
export { normalizeSource } from './normalize-source.js';
export { checkSourceSize, MAX_SOURCE_BYTES } from './source-size.js';
export { syntaxDiagnostic, lineSpan } from './syntax-diagnostic.js';
export { IDENT_PART_CLASSES, IDENT_START_CLASSES, isIdentPart, isIdentStart } from './char-classes.js';
