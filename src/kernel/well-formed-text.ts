/**
 * Text that canonical JSON (RFC 8785, the audit hash) and UTF-8 can hold: no unpaired surrogates.
 * In a `u` pattern a surrogate pair is one code point, so only unpaired halves match.
 */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** The text with each unpaired surrogate replaced by U+FFFD. */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATES, '\uFFFD');
}

/** The first `length` code units of the text, one fewer when the last would be half a surrogate pair. */
export function wellFormedPrefix(text: string, length: number): string {
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}
