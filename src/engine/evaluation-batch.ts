/**
 * The one shape work takes from the API through the queue to a thread: a batch of requests of any
 * tenants, whose distinct sources travel once. The dispatcher builds it, the `policy-evaluate` job
 * carries it, the pool slices it into per-tenant tasks of the same shape, the thread runs it.
 */

/** Evaluate one rule of a policy source for a tenant. */
export interface EvaluateRequest {
  kind: 'evaluate';
  tenantId: string;
  source: string;
  /** Locale tag as the client sent it (`en-US`, `de`, `zh_cn`…); an unsupported tag is an item error. */
  locale: string;
  functionName: string;
  /** Object keyed by parameter name or array in parameter order. */
  context: unknown;
  trace?: boolean;
  /** Caps the JSON size of this item's result and of its trace below the engine's own limits. */
  outputLimitBytes?: number;
}

/** Check and compile a module source for a tenant (a deploy): compiling is untrusted work too. */
export interface CompileRequest {
  kind: 'compile';
  tenantId: string;
  source: string;
  locale: string;
}

/** Print a stored module source in another locale (the formatter of `policy fmt --locale`). */
export interface FormatRequest {
  kind: 'format';
  tenantId: string;
  source: string;
  /** Locale tag the source is written in. */
  locale: string;
  /** Locale tag to print it in. */
  targetLocale: string;
}

export type EngineRequest = EvaluateRequest | CompileRequest | FormatRequest;

/** A request as it travels in a batch: its source replaced by an index into `EvaluationBatch.sources`. */
export type BatchItem = DistributiveOmit<EngineRequest, 'source'> & { sourceIndex: number };

export interface EvaluationBatch {
  sources: string[];
  items: BatchItem[];
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Distinct sources in first-seen order, and the index of each. */
function sourceTable() {
  const sources: string[] = [];
  const indexes = new Map<string, number>();
  return {
    sources,
    indexOf(source: string): number {
      let index = indexes.get(source);
      if (index === undefined) {
        index = sources.push(source) - 1;
        indexes.set(source, index);
      }
      return index;
    },
  };
}

/** Packs requests into a batch, each distinct source once. */
export function toBatch(requests: readonly EngineRequest[]): EvaluationBatch {
  const table = sourceTable();
  const items = requests.map((request): BatchItem => {
    const { source, ...rest } = request;
    return { ...rest, sourceIndex: table.indexOf(source) };
  });
  return { sources: table.sources, items };
}

/** A batch item and the batch it came from. */
export interface BatchPart {
  batch: EvaluationBatch;
  position: number;
}

/** Items taken from one or more batches, as a batch of their own (each distinct source once). */
export function sliceBatch(parts: readonly BatchPart[]): EvaluationBatch {
  const table = sourceTable();
  const items = parts.map(({ batch, position }): BatchItem => {
    const item = batch.items[position]!;
    return { ...item, sourceIndex: table.indexOf(batch.sources[item.sourceIndex] ?? '') };
  });
  return { sources: table.sources, items };
}
