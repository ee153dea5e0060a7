import { createAuditTrail, createRedisLinkNotices, type AuditLinker, type AuditRecorder, type LinkNotices } from '../audit/index.js';
import { redisConnection, type Config } from '../config/index.js';
import { AUDIT_CHAIN_LOG, createRedisClient, type AnnounceAppend, type RedisClient } from '../jobs/index.js';
import type { Logger } from '../logging/index.js';
import { observedAuditRecorder, type ServiceMetrics } from '../metrics/index.js';
import { isStoreUnreachable, type Store } from '../store/index.js';

/** How a process records and links: every part of it records through the one recorder. */
export interface AuditPath {
  recorder: AuditRecorder;
  linker: AuditLinker;
  /** Stores what was appended, links what this process holds, gives its leases back. */
  close(): Promise<void>;
}

export interface AuditPathInputs {
  config: Config;
  logger: Logger;
  store: Store;
  redis: RedisClient;
  metrics: ServiceMetrics;
  /** Told of each tenant's newly linked records, for the audit streams. */
  announceAppend: AnnounceAppend;
}

/**
 * The recorder stores each answer's record at once; this process's linker links the tenants whose
 * lease it holds (on SQLite, right after the insert, since the one process that stores usually
 * holds them all) and tells the holder, over Redis, of records stored for a tenant held elsewhere.
 */
export async function openAuditPath({ config, logger, store, redis, metrics, announceAppend }: AuditPathInputs): Promise<AuditPath> {
  let notices: LinkNotices | undefined;
  const trail = createAuditTrail(store.auditLinks, {
    recorder: { isUnavailable: isStoreUnreachable },
    linker: {
      leaseMs: config.AUDIT_LINK_LEASE_SECONDS * 1000,
      onLinked: (tenantId, records, lagMs) => {
        for (const lag of lagMs) metrics.auditLinkLag.observe(lag / 1000);
        announceAppend({ tenantId, log: AUDIT_CHAIN_LOG, seq: records[records.length - 1]!.seq });
      },
      onHeldElsewhere: (tenantId) => notices?.announce(tenantId),
      onFenced: (tenantId) => logger.warn({ tenantId }, 'audit linker lost a lease while linking: another process links the tenant, nothing was written'),
      onError: (error, tenantId) => logger.warn({ err: error, tenantId }, 'audit linker failed; it tries again'),
    },
  });
  const subscriber = createRedisClient(redisConnection(config), 'pe-audit-links');
  subscriber.on('error', (error: Error) => logger.warn({ err: error }, 'redis connection error'));
  try {
    notices = await createRedisLinkNotices({
      publisher: redis,
      subscriber,
      channel: `${config.REDIS_KEY_PREFIX}:audit-links`,
      onNotice: (tenantId) => trail.linker.notify(tenantId, { heard: true }),
      onError: (error) => logger.warn({ err: error }, "audit link notices: Redis failed (the linkers' sweeps find the records)"),
    });
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
  trail.linker.start(config.AUDIT_LINK_SWEEP_MS);
  return {
    recorder: observedAuditRecorder(trail.recorder, metrics),
    linker: trail.linker,
    async close() {
      await trail.close();
      await notices?.close();
    },
  };
}
