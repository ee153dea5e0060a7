export type { IdempotencyRecord, IdempotencyRepository, IdempotentResponse } from './idempotency-store.js';
export type { KeyedRequest } from './keyed-request.js';
