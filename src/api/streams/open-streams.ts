import { createTenantTurns } from '../../audit/index.js';
import { ApiError } from '../api-error.js';
import type { AppContext } from '../app-types.js';
import { ApiErrorCode } from '../error-codes.js';
import { runLogStream, STREAM_HEARTBEAT_MS, type LogStreamOptions } from './log-stream.js';
import { SseResponse } from './sse-response.js';

/** How long a refused client waits before it tries again: streams end when their clients leave. */
export const STREAM_RETRY_AFTER_SECONDS = 10;

/**
 * Pages of one tenant's streams read at once in a process; the others wait their turn, so a tenant
 * whose streams catch up on long logs shares the store and the event loop like two lists would.
 */
export const STREAM_READS_PER_TENANT = 2;

/** setTimeout's longest delay: a stream of a token that lives longer ends then, and its client reconnects. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface OpenStreamsOptions {
  /** Streams of one tenant open at once in this process (STREAM_MAX_PER_TENANT). */
  maxPerTenant: number;
  /** Streams open at once in this process (STREAM_MAX_PER_PROCESS). */
  maxPerProcess: number;
  /** Default STREAM_HEARTBEAT_MS; tests shorten it. */
  heartbeatMs?: number;
  onError(error: unknown, tenantId: string): void;
}

/** A log to stream, less what the process supplies (its first page, heartbeat, error reporting). */
export type StreamedLog = Omit<LogStreamOptions, 'first' | 'heartbeatMs' | 'onError'>;

/** The streams this process serves: admitted within their bounds, all closed when it stops. */
export interface OpenStreams {
  /**
   * Answers the request with the log's stream, resolving when the stream ends (at the latest when
   * the caller's bearer token expires: the client reconnects with a new one). Refuses it before
   * anything is sent: 429 over the tenant's bound, 503 over the process's or while stopping, and
   * whatever the first read throws (another tenant's workflow, none).
   */
  serve(ctx: AppContext, tenantId: string, log: StreamedLog): Promise<void>;
  /** Ends every stream and refuses new ones; resolves when none is left. */
  close(): Promise<void>;
}

export function createOpenStreams(options: OpenStreamsOptions): OpenStreams {
  const heartbeatMs = options.heartbeatMs ?? STREAM_HEARTBEAT_MS;
  /** Streams held per tenant, and in all: admitted, reading their first page or open. */
  const perTenant = new Map<string, number>();
  let held = 0;
  const reads = createTenantTurns(STREAM_READS_PER_TENANT);
  const open = new Map<SseResponse, Promise<void>>();
  let closing = false;
  const retryAfter = { 'Retry-After': String(STREAM_RETRY_AFTER_SECONDS) };
  const stopping = () => new ApiError(503, ApiErrorCode.STREAM_CAPACITY_REACHED, 'the server is stopping; reconnect to another', retryAfter);

  /** Takes one of the tenant's and the process's places, or refuses; returns the function that gives them back. */
  function admit(tenantId: string): () => void {
    if (closing) throw stopping();
    if (held >= options.maxPerProcess) {
      throw new ApiError(503, ApiErrorCode.STREAM_CAPACITY_REACHED, `this server holds ${options.maxPerProcess} streams (STREAM_MAX_PER_PROCESS); retry later`, retryAfter);
    }
    const tenantHeld = perTenant.get(tenantId) ?? 0;
    if (tenantHeld >= options.maxPerTenant) {
      throw new ApiError(
        429,
        ApiErrorCode.STREAM_TENANT_LIMIT,
        `the tenant has ${options.maxPerTenant} streams open on this server (STREAM_MAX_PER_TENANT); close one or retry later`,
        retryAfter,
      );
    }
    held += 1;
    perTenant.set(tenantId, tenantHeld + 1);
    return () => {
      held -= 1;
      const left = (perTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) perTenant.set(tenantId, left);
      else perTenant.delete(tenantId);
    };
  }

  return {
    async serve(ctx, tenantId, log) {
      const leave = admit(tenantId);
      try {
        const readAfter = async (afterSeq: number) => {
          const release = await reads.take(tenantId);
          try {
            return await log.readAfter(afterSeq);
          } finally {
            release();
          }
        };
        // Read before anything is sent: a refusal of the read is answered in the envelope.
        const first = await readAfter(log.afterSeq);
        if (closing) throw stopping();
        // A HEAD request learns what the stream would be, and holds none.
        if (ctx.method === 'HEAD') {
          ctx.status = 200;
          ctx.type = 'text/event-stream';
          return;
        }
        const response = new SseResponse(ctx.res);
        // Koa writes nothing: the stream is the answer.
        ctx.respond = false;
        ctx.status = 200;
        response.open(ctx.response.headers as Record<string, string | string[] | number | undefined>);
        const streaming = runLogStream(response, { ...log, first, readAfter, heartbeatMs, onError: (error) => options.onError(error, tenantId) });
        open.set(response, streaming);
        // A stream ends with its bearer token: the service no longer answers a caller whose token expired.
        const acceptedUntil = ctx.state.principal?.acceptedUntil;
        const expiry = acceptedUntil === undefined ? undefined : setTimeout(() => response.end(), Math.min(Math.max(acceptedUntil * 1000 - Date.now(), 0), LONGEST_TIMER_MS));
        try {
          await streaming;
        } finally {
          clearTimeout(expiry);
          open.delete(response);
        }
      } finally {
        leave();
      }
    },
    async close() {
      closing = true;
      for (const response of open.keys()) response.end();
      await Promise.allSettled([...open.values()]);
    },
  };
}
