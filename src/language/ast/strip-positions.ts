/** Deep copy of a tree without `id` and `span`, for structural comparison (round-trip checks). */
export function stripPositions<T>(node: T): unknown {
  if (Array.isArray(node)) return node.map((item) => stripPositions(item));
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'id' || key === 'span') continue;
    out[key] = stripPositions(value);
  }
  return out;
}
