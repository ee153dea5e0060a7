import { DEFAULT_TASK_TIMEOUT_MS } from '../engine/index.js';

/**
 * Wall time one analysis or formatting of a document may take in the analysis thread: the limit
 * the engine puts on compiling untrusted source. (The size limit, 64 KiB of UTF-8, is the
 * compiler's own: an over-size document gets its PL4001 without being parsed.)
 */
export const ANALYSIS_TIMEOUT_MS = DEFAULT_TASK_TIMEOUT_MS;

/** Quiet time after the last change before a document is analysed again (an open is analysed at once). */
export const ANALYSIS_DEBOUNCE_MS = 200;
