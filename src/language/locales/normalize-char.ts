/**
 * Source normalisation (docs/language.md §2) for one UTF-16 code unit: full-width ASCII forms
 * (U+FF01–U+FF5E: digits, letters, `：`, `，`, `（）`, …), the ideographic space and `、` `。` `【】`
 * map to ASCII. Always one unit to one unit, so offsets into the user's text never move.
 */
export function normalizeCharCode(code: number): number {
  if (code >= 0xff01 && code <= 0xff5e) return code - 0xfee0;
  switch (code) {
    case 0x3000:
      return 0x20;
    case 0x3001:
      return 0x2c;
    case 0x3002:
      return 0x2e;
    case 0x3010:
      return 0x5b;
    case 0x3011:
      return 0x5d;
    default:
      return code;
  }
}
