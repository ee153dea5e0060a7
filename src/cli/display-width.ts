/**
 * Terminal column width of text, so that carets line up under CJK and full-width characters
 * (which take two columns) and under tabs.
 */
const TAB_WIDTH = 4;

function isWide(codePoint: number): boolean {
  return (
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0x303e) ||
    (codePoint >= 0x3041 && codePoint <= 0x33ff) ||
    (codePoint >= 0x3400 && codePoint <= 0x4dbf) ||
    (codePoint >= 0x4e00 && codePoint <= 0x9fff) ||
    (codePoint >= 0xa000 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1f64f) ||
    (codePoint >= 0x1f900 && codePoint <= 0x1f9ff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd)
  );
}

function isZeroWidth(codePoint: number): boolean {
  return (codePoint >= 0x0300 && codePoint <= 0x036f) || codePoint === 0x200b || codePoint === 0xfeff;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x09) width += TAB_WIDTH;
    else if (cp < 0x20 || isZeroWidth(cp)) continue;
    else width += isWide(cp) ? 2 : 1;
  }
  return width;
}

/** The line as it should be shown: tabs expanded and other control characters dropped. */
export function displayLine(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x09) out += ' '.repeat(TAB_WIDTH);
    else if (cp < 0x20) continue;
    else out += ch;
  }
  return out;
}
