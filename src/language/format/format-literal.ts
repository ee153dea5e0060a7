/** `1e21` → `1000000000000000000000`, `1.5e-7` → `0.00000015`: the language has no exponent notation. */
function expandExponent(text: string): string {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const [mantissa, exponentText] = unsigned.split('e') as [string, string];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string?];
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  let plain: string;
  if (point <= 0) plain = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) plain = digits + '0'.repeat(point - digits.length);
  else plain = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${plain}` : plain;
}

/** The shortest text that reads back as the same number, always with a decimal point (`12.0`). */
export function formatFloat(value: number): string {
  let text = String(value);
  if (text.includes('e')) text = expandExponent(text);
  return text.includes('.') ? text : `${text}.0`;
}

// A full-width `＂` closes a `"…"` literal too (it normalises to `"`), so it is written as an escape.
const ESCAPED = /["\\\u0000-\u001f\u007f-\u009f\uff02]/g;

function escapeChar(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"';
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
    default:
      return `\\u{${ch.charCodeAt(0).toString(16).toUpperCase()}}`;
  }
}

/** A string literal in `"…"` with the escapes of docs/language.md §2. */
export function formatText(value: string): string {
  return `"${value.replace(ESCAPED, escapeChar)}"`;
}
