// Only unpaired halves match in a `u` pattern; canonical JSON (the audit hash) has no form for them.
const LONE_SURROGATE = /\p{Cs}/gu;

/** Text as an audit record can hold it: messages may quote a source with unpaired surrogates. */
export function storableText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}
