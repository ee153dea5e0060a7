import type { ModuleNode } from '../ast/nodes.js';

/**
 * Numbers every node 1, 2, 3, … in source order (a parent before its children). Node objects are
 * built with their children in source order, so a pre-order walk over their keys is source order.
 */
export function assignNodeIds(module: ModuleNode): void {
  let next = 1;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item !== null && typeof item === 'object') visit(item);
      }
      return;
    }
    const node = value as Record<string, unknown>;
    if (typeof node.kind === 'string') node.id = next++;
    for (const key in node) {
      if (key === 'span') continue;
      const child = node[key];
      if (child !== null && typeof child === 'object') visit(child);
    }
  };
  visit(module);
}
