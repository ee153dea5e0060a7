/** A short burst of evaluations of deployed policies, through the batch route as any client sends them. */
import type { CliIo } from '../cli-io.js';
import type { ServiceApi } from './service-api.js';

export interface TrafficTarget {
  policyModule: string;
  policyFunction: string;
  /** Pinned version, as a client that has not moved on asks for it; absent: the active one. */
  version?: number;
  contexts: unknown[];
}

interface BatchAnswer {
  results: Array<{ error: string | null }>;
}

/** Items per request: well under the batch bound (BATCH_MAX_ITEMS, 64 by default) and the body limit with long claim histories. */
const ITEMS_PER_REQUEST = 20;

export const EVALUATE_BATCH_ROUTE = '/api/v1/policies/evaluate-source/batch';

/** Sends every target's contexts, interleaved, and prints what each target's evaluations gave. */
export async function driveTraffic(api: ServiceApi, targets: readonly TrafficTarget[], io: CliIo): Promise<void> {
  const items = targets.flatMap((target, index) =>
    target.contexts.map((context, n) => ({
      target: index,
      order: n * targets.length + index,
      item: {
        policyModule: target.policyModule,
        policyFunction: target.policyFunction,
        ...(target.version === undefined ? {} : { version: target.version }),
        context,
      },
    })),
  );
  items.sort((a, b) => a.order - b.order);
  const failed = targets.map(() => 0);
  for (let start = 0; start < items.length; start += ITEMS_PER_REQUEST) {
    const chunk = items.slice(start, start + ITEMS_PER_REQUEST);
    const answer = await api.call<BatchAnswer>('POST', EVALUATE_BATCH_ROUTE, { items: chunk.map((entry) => entry.item) });
    answer.results.forEach((result, i) => {
      if (result.error !== null) failed[chunk[i]!.target]! += 1;
    });
  }
  targets.forEach((target, index) => {
    const which = target.version === undefined ? 'active version' : `pinned to version ${target.version}`;
    io.out(`  ${target.policyModule} ${target.policyFunction} (${which}): ${target.contexts.length} evaluations, ${failed[index]} failed`);
  });
}
