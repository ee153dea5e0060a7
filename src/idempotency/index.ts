export type { IdempotencyRecord, IdempotencyRepository, IdempotentResponse } from './idempotency-store.js';
