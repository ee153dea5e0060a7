/**
 * A request with an `Idempotency-Key`, as a handler may store it with its effect so that a repeat
 * finds that effect even after the key was freed.
 */
export interface KeyedRequest {
  /** Names the key and the request, the same on every repeat; stored with the request's effect. */
  ref: string;
  /** ISO 8601: an effect stored before it is forgotten, as the request's key is. */
  since: string;
}
