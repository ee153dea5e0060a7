/**
 * Services map these to 503: the request was valid, but nothing could evaluate it in time.
 * `publicReason` is what a client may read; the message (with causes) is for the log.
 */
export class EvaluationUnavailableError extends Error {
  override name = 'EvaluationUnavailableError';
  constructor(
    message: string,
    readonly publicReason: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No evaluation worker answered a batch within the response timeout. */
export class NoWorkerAvailableError extends EvaluationUnavailableError {
  override name = 'NoWorkerAvailableError';
  constructor(readonly timeoutMs: number) {
    const reason = `no evaluation worker answered within ${timeoutMs} ms`;
    super(reason, reason);
  }
}

/** The batch could not be put on the queue (Redis unreachable or refusing writes). */
export class EvaluationQueueError extends EvaluationUnavailableError {
  override name = 'EvaluationQueueError';
  constructor(cause: unknown) {
    super(`the evaluation queue is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, 'the evaluation queue is unavailable', {
      cause,
    });
  }
}

/** A worker took the batch but its engine failed as a whole (not one item): services map this to 500. */
export class EvaluationWorkerError extends Error {
  override name = 'EvaluationWorkerError';
}

/** The dispatcher was closed while requests were waiting. */
export class DispatcherClosedError extends EvaluationUnavailableError {
  override name = 'DispatcherClosedError';
  constructor() {
    super('the evaluation dispatcher is closed', 'the service is shutting down');
  }
}
