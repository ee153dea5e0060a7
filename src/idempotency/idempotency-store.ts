/** The response an idempotent request produced, replayed for a repeated key. */
export interface IdempotentResponse {
  status: number;
  body: unknown;
}

export interface IdempotencyRecord {
  key: string;
  /** Hash of method, path and body: a reused key with a different request is refused. */
  requestHash: string;
  /** Random per attempt: only the request that took the key may complete or release it. */
  owner: string;
  /** Null while the first request runs; its response once it completed. */
  response: IdempotentResponse | null;
  createdAt: string;
  /** While running: the end of the running lease; once completed: the end of the replay period. */
  expiresAt: string;
}

export interface IdempotencyRepository {
  /** Expired records are treated as absent (TTL indexes are not enforced by every backend). */
  get(tenantId: string, key: string, now: Date): Promise<IdempotencyRecord | null>;
  /** First writer wins: returns false when an unexpired record with the key already exists. */
  putIfAbsent(tenantId: string, record: IdempotencyRecord, now: Date): Promise<boolean>;
  /**
   * Stores the response of the owner's request and its new expiry. Returns false, changing nothing,
   * when the owner no longer holds the key (its lease expired and another request took it).
   */
  complete(tenantId: string, key: string, owner: string, response: IdempotentResponse, expiresAt: string): Promise<boolean>;
  /** Frees a running key the owner still holds (its request failed: a retry may run it again). */
  release(tenantId: string, key: string, owner: string): Promise<void>;
}
