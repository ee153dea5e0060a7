import { createHash, randomUUID } from 'node:crypto';
import { canonicalJson } from '../../audit/index.js';
import type { IdempotencyRecord, IdempotencyRepository, IdempotentResponse } from '../../idempotency/index.js';
import { ApiError, isExposedError } from '../api-error.js';
import type { AppContext, AppMiddleware } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { errorEnvelope } from '../error-envelope.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Printable ASCII without spaces: a UUID fits, and so does any reasonable client scheme. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The interface's Limits: a response is replayed for 24 hours. */
export const IDEMPOTENCY_REPLAY_MS = 24 * 3_600_000;
/** A running request holds its key this long; past it (its process died, say) the key is free again. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** Keys whose answer one middleware (one per API process) writes again in the background at once. */
export const MAX_ANSWERS_RETRYING = 1_000;

export interface IdempotencyOptions {
  repository: IdempotencyRepository;
  /** How long a completed response is replayed. Default IDEMPOTENCY_REPLAY_MS. */
  replayMs?: number;
  /** Default IDEMPOTENCY_LEASE_MS. */
  leaseMs?: number;
  /** Default MAX_ANSWERS_RETRYING. */
  maxAnswersRetrying?: number;
  now?: () => Date;
}

/**
 * Method, path with query, and the body in RFC 8785 canonical JSON: the same request hashes the same
 * however it is spaced. A body with no canonical form (a lone surrogate, a number beyond a double)
 * cannot be told apart from its look-alikes, so it is refused (400) rather than keyed.
 */
export function idempotencyRequestHash(method: string, url: string, body: unknown): string {
  let text: string;
  try {
    text = canonicalJson(body === undefined ? null : body);
  } catch (error) {
    throw new ApiError(
      400,
      ApiErrorCode.REQUEST_JSON_MALFORMED,
      `a request with an Idempotency-Key needs a body in I-JSON (RFC 7493), which has one canonical form: ${(error as Error).message}`,
    );
  }
  return createHash('sha256').update(`${method}\n${url}\n${text}`, 'utf8').digest('hex');
}

function replay(ctx: AppContext, response: IdempotentResponse): void {
  ctx.body = response.body ?? null;
  ctx.status = response.status;
  ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
}

/** A request already holds the key: replay its response, or refuse. */
function answerExisting(ctx: AppContext, existing: IdempotencyRecord, hash: string, key: string): void {
  if (existing.requestHash !== hash) {
    throw new ApiError(
      422,
      ApiErrorCode.IDEMPOTENCY_KEY_REUSED,
      `Idempotency-Key \`${key}\` was used for a different request (method, path or body); use a new key for a new request`,
    );
  }
  if (existing.response === null) {
    throw new ApiError(
      409,
      ApiErrorCode.IDEMPOTENCY_REQUEST_IN_PROGRESS,
      `a request with Idempotency-Key \`${key}\` is still running; retry once it has finished to get its response`,
    );
  }
  replay(ctx, existing.response);
}

/**
 * With an `Idempotency-Key` header, the first request takes the key (one insert into the unique
 * (tenant, key) index decides between concurrent ones) and runs; its response is stored and
 * replayed to every repeat for `replayMs`. The key is scoped by tenant. A response that is a 5xx
 * (or an unexpected error) is not kept: the key is released so a retry runs the request again;
 * unless the handler had stored its effect first (`ctx.state.storedEffectAnswer`): then the key
 * keeps that answer, so a retry replays it instead of applying the effect a second time. A handler
 * may store `ctx.state.idempotentRequest` with its effect, for a repeat to find it should the key
 * be freed all the same (its process stopped before writing the key's answer).
 * Needs `ctx.state.tenantId`, so it goes after the route's guard.
 */
export function idempotent(options: IdempotencyOptions): AppMiddleware {
  const now = options.now ?? (() => new Date());
  const replayMs = options.replayMs ?? IDEMPOTENCY_REPLAY_MS;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const answersRetrying: RetrySlots = { inUse: 0, max: options.maxAnswersRetrying ?? MAX_ANSWERS_RETRYING };
  return async (ctx, next) => {
    const key = ctx.get(IDEMPOTENCY_KEY_HEADER);
    if (key === '') return next();
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError(400, ApiErrorCode.IDEMPOTENCY_KEY_INVALID, 'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces (a UUID is recommended)');
    }
    const tenantId = ctx.state.tenantId;
    if (tenantId === undefined) throw new Error('idempotent route reached without a tenant');
    const hash = idempotencyRequestHash(ctx.method, ctx.url, (ctx.request as { body?: unknown }).body);
    const repository = options.repository;
    const startedAt = now();
    const existing = await repository.get(tenantId, key, startedAt);
    if (existing !== null) return answerExisting(ctx, existing, hash, key);
    const owner = randomUUID();
    const claim: IdempotencyRecord = {
      key,
      requestHash: hash,
      owner,
      response: null,
      createdAt: startedAt.toISOString(),
      expiresAt: new Date(startedAt.getTime() + leaseMs).toISOString(),
    };
    if (!(await repository.putIfAbsent(tenantId, claim, startedAt))) {
      const winner = await repository.get(tenantId, key, startedAt);
      if (winner === null) throw new ApiError(409, ApiErrorCode.IDEMPOTENCY_REQUEST_IN_PROGRESS, `Idempotency-Key \`${key}\` is contended: retry`);
      return answerExisting(ctx, winner, hash, key);
    }
    ctx.state.idempotentRequest = {
      ref: createHash('sha256').update(`${key}\n${hash}`, 'utf8').digest('hex'),
      since: new Date(startedAt.getTime() - replayMs).toISOString(),
    };
    const expiresAtMs = startedAt.getTime() + replayMs;
    const expiresAt = new Date(expiresAtMs).toISOString();
    const leaseEnds = startedAt.getTime() + leaseMs;
    const refused = (write: 'release' | 'answer') => (error: unknown, retried: boolean) =>
      ctx.state.log?.warn(
        { err: error, tenantId, idempotencyKey: key, write, retried },
        retried
          ? 'the outcome of a keyed request was not stored (the store refused); it is written again in the background'
          : 'the answer of a keyed request was not stored (the store refused) and as many keys as allowed are retried already: the key is held until its lease ends',
      );
    // A release is pointless once the lease has ended. An answer is tried for as long as it would
    // be replayed: after an outage longer than the lease it is still written once the store is
    // back, unless a retry took the expired key first (the write then changes nothing).
    const release = () => persist(() => repository.release(tenantId, key, owner), leaseEnds, refused('release'));
    const complete = (answer: IdempotentResponse) =>
      persist(() => repository.complete(tenantId, key, owner, answer, expiresAt), expiresAtMs, refused('answer'), answersRetrying);
    /** The effect is stored although this attempt fails: the key keeps its answer; the attempt answers as it would. */
    const keepStoredEffect = (answer: IdempotentResponse) => complete(answer).catch(() => undefined);
    try {
      await next();
    } catch (error) {
      const stored = ctx.state.storedEffectAnswer;
      if (stored !== undefined) await keepStoredEffect(stored);
      else if (!isExposedError(error) || error.status >= 500) await release().catch(() => undefined);
      else await complete({ status: error.status, body: errorEnvelope(error.code, error.message) });
      throw error;
    }
    const stored = ctx.state.storedEffectAnswer;
    if (ctx.status < 500) await complete({ status: ctx.status, body: ctx.body ?? null });
    else if (stored !== undefined) await keepStoredEffect(stored);
    else await release();
  };
}

/** First retry of a key write the store refused; the pause doubles up to SETTLE_MAX_PAUSE_MS. */
const SETTLE_FIRST_PAUSE_MS = 250;
const SETTLE_MAX_PAUSE_MS = 2000;

/** How many keys' writes are retried in the background at once, and how many may be. */
interface RetrySlots {
  inUse: number;
  readonly max: number;
}

/**
 * Writes the key's outcome; when the store refuses (it is away), the request still fails as it
 * would, `onRefused` is told once, and the write is retried in the background until it succeeds or
 * `until` has passed. Otherwise a store that came back after a few seconds would leave the key held
 * for the whole lease, and every retry of the request would get 409 "in progress" for up to a minute.
 * With `slots`, a write is retried only while fewer than `slots.max` are: past that, the key is
 * held until its lease ends and is then free, so a retry of the request runs again (a handler that
 * stored `idempotentRequest` with its effect finds that effect instead of applying it twice).
 */
async function persist(
  write: () => Promise<unknown>,
  until: number,
  onRefused: (error: unknown, retried: boolean) => void,
  slots?: RetrySlots,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    const retried = slots === undefined || slots.inUse < slots.max;
    onRefused(error, retried);
    if (retried) {
      if (slots !== undefined) slots.inUse += 1;
      const done = () => {
        if (slots !== undefined) slots.inUse -= 1;
      };
      let pause = SETTLE_FIRST_PAUSE_MS;
      const retry = () => {
        if (Date.now() >= until) return done();
        write().then(done, () => {
          pause = Math.min(pause * 2, SETTLE_MAX_PAUSE_MS);
          setTimeout(retry, pause).unref();
        });
      };
      setTimeout(retry, pause).unref();
    }
    throw error;
  }
}
