import { Kind, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { isDomainQuery } from './domain-queries.js';

export interface QueryComplexity {
  /** Deepest field nesting; a root field is 1. */
  depth: number;
  /** Fields selected, each 1, a root domain decision `decisionCost`. */
  cost: number;
  aliases: number;
}

export type FragmentLookup = (name: string) => FragmentDefinitionNode | null | undefined;

const NOTHING: QueryComplexity = { depth: 0, cost: 0, aliases: 0 };

/**
 * Measures a selection set with its fragments expanded. Each fragment is measured once per level
 * kind (root or not) and reused, so a document that doubles itself through fragments costs linear
 * time to measure while its exponential cost is still reported. Unknown or cyclic fragments count
 * as nothing: validation reports them.
 */
export function measureSelectionSet(selectionSet: SelectionSetNode, fragments: FragmentLookup, decisionCost: number): QueryComplexity {
  const memo = new Map<string, QueryComplexity>();
  const visiting = new Set<string>();

  function measure(set: SelectionSetNode, atRoot: boolean): QueryComplexity {
    let depth = 0;
    let cost = 0;
    let aliases = 0;
    for (const selection of set.selections) {
      let part: QueryComplexity;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? measure(selection.selectionSet, false) : NOTHING;
        const own = atRoot && isDomainQuery(selection.name.value) ? decisionCost : 1;
        part = { depth: below.depth + 1, cost: below.cost + own, aliases: below.aliases + (selection.alias ? 1 : 0) };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        part = measure(selection.selectionSet, atRoot);
      } else {
        part = measureFragment(selection.name.value, atRoot);
      }
      depth = Math.max(depth, part.depth);
      cost += part.cost;
      aliases += part.aliases;
    }
    return { depth, cost, aliases };
  }

  function measureFragment(name: string, atRoot: boolean): QueryComplexity {
    const key = `${atRoot ? 'root' : 'nested'}:${name}`;
    const known = memo.get(key);
    if (known) return known;
    const fragment = fragments(name);
    if (!fragment || visiting.has(key)) return NOTHING;
    visiting.add(key);
    const measured = measure(fragment.selectionSet, atRoot);
    visiting.delete(key);
    memo.set(key, measured);
    return measured;
  }

  return measure(selectionSet, true);
}
