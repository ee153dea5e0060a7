import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { POLICY_PAGE_DEFAULT_SIZE, POLICY_PAGE_MAX_SIZE } from '../policies/index.js';
import { isDomainQuery } from './domain-queries.js';

export interface QueryComplexity {
  /** Deepest field nesting; a root field is 1. */
  depth: number;
  /**
   * Fields selected, each 1, a root domain decision `decisionCost`, a policy's `source`
   * SOURCE_FIELD_COST; a list's selection counts once per item it may answer.
   */
  cost: number;
  aliases: number;
}

/**
 * A policy's `source` (its version's, up to 64 KiB) weighs hundreds of times any other
 * field of it (a name of at most 256 characters, a number, a status): it costs 40. The argument-free
 * `listPolicies` with every field then costs 1 + 20 × (7 + 40) = 941, within the default limit of
 * 1000, and no query within that limit carries more than 24 sources (1.5 MiB of source text).
 */
export const SOURCE_FIELD_COST = 40;

/**
 * Root fields answering a list, with the argument that bounds its length: the selection is paid
 * for once per item. A literal within bounds counts as given; a variable or anything else as the
 * maximum (the cost is decided once per query text, before variables are known).
 */
const LIST_FIELDS: Readonly<Record<string, { argument: string; default: number; max: number }>> = {
  listPolicies: { argument: 'size', default: POLICY_PAGE_DEFAULT_SIZE, max: POLICY_PAGE_MAX_SIZE },
};

function listLength(field: FieldNode): number {
  const list = LIST_FIELDS[field.name.value]!;
  const given = field.arguments?.find((argument) => argument.name.value === list.argument);
  if (given === undefined) return list.default;
  if (given.value.kind !== Kind.INT) return list.max;
  return Math.min(list.max, Math.max(1, Number(given.value.value)));
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
        const name = selection.name.value;
        const below = selection.selectionSet ? measure(selection.selectionSet, false) : NOTHING;
        const own = atRoot && isDomainQuery(name) ? decisionCost : !atRoot && name === 'source' ? SOURCE_FIELD_COST : 1;
        const items = atRoot && Object.hasOwn(LIST_FIELDS, name) ? listLength(selection) : 1;
        part = { depth: below.depth + 1, cost: below.cost * items + own, aliases: below.aliases + (selection.alias ? 1 : 0) };
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
