import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { isDomainQuery } from './domain-queries.js';

/**
 * The domain decisions an operation selects at its root (fragments expanded), one per response
 * key in document order: fields sharing a response key are merged by GraphQL and run once, so this
 * is the number of evaluations the operation asks for. `@skip`/`@include` are not evaluated: a
 * decision written into the document counts whatever the variables say.
 */
export function rootDecisions(document: DocumentNode, operation: OperationDefinitionNode): FieldNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const decisions = new Map<string, FieldNode>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        if (isDomainQuery(selection.name.value) && !decisions.has(key)) decisions.set(key, selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        // A fragment spread twice selects the same response keys again: once is enough.
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return [...decisions.values()];
}
