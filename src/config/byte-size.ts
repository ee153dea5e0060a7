const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
const BYTE_SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;

/** Parses `512kb`, `1mb`, `1048576` (plain bytes) into a byte count; null when not a size. */
export function parseByteSize(text: string): number | null {
  const match = BYTE_SIZE.exec(text.trim());
  if (!match) return null;
  const unit = UNITS[(match[2] ?? 'b').toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isFinite(bytes) && bytes > 0 ? bytes : null;
}
