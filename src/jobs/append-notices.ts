import type { RedisClient } from './redis-connection.js';

/**
 * Word that a tenant's log grew: its audit chain, or one workflow's events. Streams reading a log
 * wake on it and read the store from the last sequence they sent, so a notice that goes astray
 * costs only time (their slow timer reads too).
 */
export interface AppendNotice {
  tenantId: string;
  /** Which of the tenant's logs: AUDIT_CHAIN_LOG, or workflowLog(workflowId). */
  log: string;
  /** The highest sequence appended. */
  seq: number;
}

/** The tenant's audit chain, as a notice names it. */
export const AUDIT_CHAIN_LOG = 'audit';

/** One workflow's events, as a notice names them. */
export function workflowLog(workflowId: string): string {
  return `workflow:${workflowId}`;
}

/** The pub/sub channel of the notices, under the deployment's Redis key prefix. */
export function appendNoticeChannel(prefix: string): string {
  return `${prefix}:append-notices`;
}

/** Tells every process of an append; never rejects (the readers' timers are the fallback). */
export type AnnounceAppend = (notice: AppendNotice) => void;

export function createAppendAnnouncer(options: { publisher: RedisClient; channel: string; onError?: (error: Error) => void }): AnnounceAppend {
  return ({ tenantId, log, seq }) => {
    options.publisher.publish(options.channel, JSON.stringify([tenantId, log, seq])).catch((error: Error) => options.onError?.(error));
  };
}

/** A listener is told the sequence announced, or null when notices may have been missed (Redis reconnected). */
export type AppendListener = (seq: number | null) => void;

/** The notices heard by this process, fanned out to the listeners of each tenant's log. */
export interface AppendListeners {
  /** Calls `listener` for each notice of the tenant's log; returns the function that stops listening. */
  listen(tenantId: string, log: string, listener: AppendListener): () => void;
  close(): Promise<void>;
}

function parseNotice(message: string): AppendNotice | null {
  try {
    const [tenantId, log, seq] = JSON.parse(message) as unknown[];
    if (typeof tenantId !== 'string' || typeof log !== 'string' || typeof seq !== 'number' || !Number.isSafeInteger(seq)) return null;
    return { tenantId, log, seq };
  } catch {
    return null;
  }
}

/**
 * One subscriber connection per process: each notice is a map lookup by tenant then log, so another
 * tenant's notices cost the process nothing beyond it.
 */
export async function createAppendListeners(options: { subscriber: RedisClient; channel: string; onError?: (error: Error) => void }): Promise<AppendListeners> {
  const { subscriber, channel } = options;
  const byTenant = new Map<string, Map<string, Set<AppendListener>>>();
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    const notice = parseNotice(message);
    if (notice === null) return;
    const listeners = byTenant.get(notice.tenantId)?.get(notice.log);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) listener(notice.seq);
  });
  // While the connection was down notices went past: every listener reads again once subscribed.
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => {
        for (const logs of byTenant.values()) for (const listeners of logs.values()) for (const listener of [...listeners]) listener(null);
      },
      (error: Error) => options.onError?.(error),
    );
  });
  await subscriber.subscribe(channel);
  return {
    listen(tenantId, log, listener) {
      let logs = byTenant.get(tenantId);
      if (logs === undefined) byTenant.set(tenantId, (logs = new Map()));
      let listeners = logs.get(log);
      if (listeners === undefined) logs.set(log, (listeners = new Set()));
      listeners.add(listener);
      let listening = true;
      return () => {
        if (!listening) return;
        listening = false;
        listeners.delete(listener);
        if (listeners.size > 0) return;
        logs.delete(log);
        if (logs.size === 0) byTenant.delete(tenantId);
      };
    },
    async close() {
      byTenant.clear();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
