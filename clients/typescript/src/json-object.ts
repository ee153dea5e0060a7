/** A parsed JSON object (not an array, not null): the shape of every answer body and item the client reads. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
