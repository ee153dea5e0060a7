import { GraphQLError, type ValidationRule } from 'graphql';
import { GraphqlErrorCode } from './graphql-error-codes.js';
import type { GraphqlLimits } from './graphql-limits.js';
import { POLICY_PAGE_MAX_SIZE } from '../policies/index.js';
import { measureSelectionSet, SOURCE_FIELD_COST } from './query-complexity.js';

/**
 * Validation rules for depth, aliases and cost, one error per exceeded limit and operation. They
 * run in a pass of their own before the specified rules, so an oversized document is refused
 * before the costlier checks look at it.
 */
export function createLimitRules(limits: GraphqlLimits): ValidationRule[] {
  const operationLimits: ValidationRule = (context) => ({
    OperationDefinition(operation) {
      const measured = measureSelectionSet(operation.selectionSet, (name) => context.getFragment(name), limits.decisionCost);
      const subject = operation.name ? `operation \`${operation.name.value}\`` : 'the operation';
      const report = (code: string, message: string) =>
        context.reportError(new GraphQLError(message, { nodes: [operation], extensions: { code } }));
      if (measured.depth > limits.maxDepth) {
        report(GraphqlErrorCode.DEPTH_LIMIT, `${subject} is nested ${measured.depth} levels deep; the limit is ${limits.maxDepth}`);
      }
      if (measured.aliases > limits.maxAliases) {
        report(GraphqlErrorCode.ALIAS_LIMIT, `${subject} uses ${measured.aliases} aliases; the limit is ${limits.maxAliases}`);
      }
      if (measured.cost > limits.maxCost) {
        report(
          GraphqlErrorCode.COST_LIMIT,
          `${subject} costs ${formatCost(measured.cost)}; the limit is ${limits.maxCost} ` +
            `(each selected field costs 1, a policy's \`source\` ${SOURCE_FIELD_COST}, each domain decision ${limits.decisionCost}; ` +
            `\`listPolicies\` counts its fields once per policy it may answer, \`size\` of them (${POLICY_PAGE_MAX_SIZE} when a variable); ` +
            'fragments counted where they are spread)',
        );
      }
      return false;
    },
  });
  return [operationLimits];
}

/** A document that doubles itself through fragments can cost more than a safe integer. */
function formatCost(cost: number): string {
  return Number.isSafeInteger(cost) ? String(cost) : `more than ${Number.MAX_SAFE_INTEGER}`;
}
