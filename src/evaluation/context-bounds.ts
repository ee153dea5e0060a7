/** Deepest nesting of arrays and objects a context may have; deeper is refused before queueing. */
export const DEFAULT_CONTEXT_MAX_DEPTH = 64;

/**
 * Why a context cannot be evaluated, or null. Walks without recursion, so a hostile 100,000-level
 * array costs a loop, not a stack overflow, and stops at the first level past the bound. Its
 * size is already bounded by the request body limit.
 */
export function contextDepthProblem(context: unknown, maxDepth: number): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: context, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth) {
      return `\`context\` is nested deeper than ${maxDepth} levels of arrays and objects (CONTEXT_MAX_DEPTH)`;
    }
    const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
    }
  }
  return null;
}
