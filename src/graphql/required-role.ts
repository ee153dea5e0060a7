import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Role } from '../auth/index.js';
import { isDomainQuery } from './domain-queries.js';

export interface RoleRequirement {
  role: Role;
  /** The selected domain decisions (what needs MEMBER), in document order. */
  decisions: string[];
}

/**
 * The least role the operation needs, from the root fields it selects (fragments expanded):
 * policy reads, `__typename` and introspection need VIEWER, any domain decision MEMBER.
 * `@skip`/`@include` are not evaluated: a decision written into the document needs the role
 * whatever the variables say.
 */
export function requiredRole(document: DocumentNode, operation: OperationDefinitionNode): RoleRequirement {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const decisions = new Set<string>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (isDomainQuery(selection.name.value)) decisions.add(selection.name.value);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return { role: decisions.size > 0 ? 'MEMBER' : 'VIEWER', decisions: [...decisions] };
}
