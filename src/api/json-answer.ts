import { ApiError } from './api-error.js';
import { ApiErrorCode } from './error-codes.js';

/**
 * The largest JSON answer (UTF-8 bytes) the service sends, by default. Every list pages and every
 * GraphQL query is costed, so no admitted request should come near it; above the largest batch of
 * evaluation answers (EVALUATION_MAX_RESPONSE_BYTES, 16 MiB) with room for their envelopes.
 */
export const DEFAULT_RESPONSE_MAX_BYTES = 64 * 1024 * 1024;

/** An answer larger than its bound: the service's fault (a list it should have paged), said in the envelope. */
export function responseTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    500,
    ApiErrorCode.RESPONSE_TOO_LARGE,
    `the answer is larger than ${maxBytes} bytes (RESPONSE_MAX_BYTES); ask for less, such as a smaller page`,
  );
}

/**
 * `value` as JSON text of at most `maxBytes` UTF-8 bytes; throws responseTooLarge otherwise, also
 * when the text would pass the longest string the runtime can make.
 */
export function jsonAnswer(value: unknown, maxBytes: number): string {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError && /string length/i.test(error.message)) throw responseTooLarge(maxBytes);
    throw error;
  }
  // A UTF-16 code unit is 1 to 3 UTF-8 bytes: count them only when the length alone cannot decide.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes)) {
    throw responseTooLarge(maxBytes);
  }
  return text;
}
