/**
 * The rule call graph must be acyclic (docs/language.md §4): that is what guarantees termination.
 * The same walk yields the order in which rules can be compiled, callees first.
 */
import { RecursiveCall } from '../diagnostics/index.js';
import type { Reporter } from './reporter.js';
import type { CallEdge } from './rule-scope.js';

export function orderRules(ruleNames: readonly string[], edges: readonly CallEdge[], reporter: Reporter): string[] {
  const outgoing = new Map<string, CallEdge[]>();
  for (const name of ruleNames) outgoing.set(name, []);
  for (const edge of edges) outgoing.get(edge.from)?.push(edge);

  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const order: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'active');
    stack.push(name);
    for (const edge of outgoing.get(name) ?? []) {
      const seen = state.get(edge.to);
      if (seen === 'active') {
        const cycle = [...stack.slice(stack.indexOf(edge.to)), edge.to].map((n) => `\`${n}\``).join(' → ');
        reporter.report(RecursiveCall(cycle), edge.call.span);
      } else if (seen === undefined && outgoing.has(edge.to)) {
        visit(edge.to);
      }
    }
    stack.pop();
    state.set(name, 'done');
    order.push(name);
  };
  for (const name of ruleNames) {
    if (!state.has(name)) visit(name);
  }
  return order;
}
