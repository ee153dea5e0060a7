export { parse } from './parse.js';
export { MAX_NESTING } from './parser-base.js';
