/** Stable codes of the evaluation area (`ERR_EVALUATION_*`). */
export const EvaluationErrorCode = {
  /** 400: the request envelope is not what the endpoint takes (missing field, wrong JSON type). */
  REQUEST_INVALID: 'ERR_EVALUATION_REQUEST_INVALID',
  /** 400: a batch holds no items or more than EVALUATE_BATCH_MAX_ITEMS. */
  BATCH_SIZE_INVALID: 'ERR_EVALUATION_BATCH_SIZE_INVALID',
  /** 503: no evaluation worker answered in time, or the queue is unreachable. */
  UNAVAILABLE: 'ERR_EVALUATION_UNAVAILABLE',
  /** Batch item (HTTP 200): the item itself is malformed; the other items are evaluated. */
  ITEM_INVALID: 'ERR_EVALUATION_ITEM_INVALID',
  /** Batch item (HTTP 200): stored policies cannot be evaluated by this service (no resolver). */
  STORED_POLICY_UNSUPPORTED: 'ERR_EVALUATION_STORED_POLICY_UNSUPPORTED',
  /** Item (HTTP 200): the thread running it stopped twice (crash, out of memory). */
  THREAD_STOPPED: 'ERR_EVALUATION_THREAD_STOPPED',
  /** Item (HTTP 200): the engine failed on this item without a language diagnostic. */
  INTERNAL: 'ERR_EVALUATION_INTERNAL',
} as const;

/**
 * A structurally invalid evaluation request (400). `expose` and `code` let the API's error
 * envelope show the message as it is.
 */
export class EvaluationRequestError extends Error {
  override readonly name = 'EvaluationRequestError';
  readonly status = 400;
  readonly expose = true;
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
