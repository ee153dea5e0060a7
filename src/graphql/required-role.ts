import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { Role } from '../auth/index.js';
import { rootDecisions } from './root-decisions.js';

export interface RoleRequirement {
  role: Role;
  /** The selected domain decisions (what needs MEMBER), each name once, in document order. */
  decisions: string[];
}

/**
 * The least role the operation needs, from the root fields it selects (fragments expanded):
 * policy reads, `__typename` and introspection need VIEWER, any domain decision MEMBER.
 * `@skip`/`@include` are not evaluated: a decision written into the document needs the role
 * whatever the variables say.
 */
export function requiredRole(document: DocumentNode, operation: OperationDefinitionNode): RoleRequirement {
  const decisions = [...new Set(rootDecisions(document, operation).map((field) => field.name.value))];
  return { role: decisions.length > 0 ? 'MEMBER' : 'VIEWER', decisions };
}
