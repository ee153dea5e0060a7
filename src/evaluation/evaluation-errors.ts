import { EngineFailureCode } from '../engine/index.js';

/** Stable codes of the evaluation area (`ERR_EVALUATION_*`). */
export const EvaluationErrorCode = {
  /** 400: the request envelope is not what the endpoint takes (missing field, wrong JSON type). */
  REQUEST_INVALID: 'ERR_EVALUATION_REQUEST_INVALID',
  /** 400: a batch holds no items or more than EVALUATE_BATCH_MAX_ITEMS. */
  BATCH_SIZE_INVALID: 'ERR_EVALUATION_BATCH_SIZE_INVALID',
  /** 400 (an item error in a batch): the context is nested deeper than CONTEXT_MAX_DEPTH. */
  CONTEXT_TOO_DEEP: 'ERR_EVALUATION_CONTEXT_TOO_DEEP',
  /** 503: no evaluation worker answered in time, or the queue is unreachable. */
  UNAVAILABLE: 'ERR_EVALUATION_UNAVAILABLE',
  /** Batch item (HTTP 200): the item itself is malformed; the other items are evaluated. */
  ITEM_INVALID: EngineFailureCode.ITEM_INVALID,
  /** Item (HTTP 200): the thread running it stopped twice (crash, out of memory). */
  THREAD_STOPPED: EngineFailureCode.THREAD_STOPPED,
  /** Item (HTTP 200): the engine failed on this item without a language diagnostic. */
  INTERNAL: EngineFailureCode.INTERNAL,
  /** The requester went away before the answer: its items were not run. */
  CANCELLED: EngineFailureCode.CANCELLED,
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

/** The client hung up before its answer; nothing more is done for it (499, which nobody reads). */
export class RequesterGoneError extends Error {
  override readonly name = 'RequesterGoneError';
  readonly status = 499;
  readonly expose = true;
  readonly code = EvaluationErrorCode.CANCELLED;
  constructor() {
    super('the client closed the connection before the evaluation was answered');
  }
}
