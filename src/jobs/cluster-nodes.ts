import type { ClusterNode } from './redis-connection.js';

/** Seed nodes one REDIS_CLUSTER_NODES may list: a cluster is found from any one of them. */
export const MAX_CLUSTER_SEED_NODES = 64;

const NODE_PATTERN = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/**
 * `host:port,host:port,…` (IPv6 as `[::1]:7000`) into seed nodes; throws a message naming the first
 * entry that is not one, so the configuration error says what to fix.
 */
export function parseClusterNodes(text: string): ClusterNode[] {
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_CLUSTER_SEED_NODES) throw new Error(`must list at most ${MAX_CLUSTER_SEED_NODES} seed nodes, got ${entries.length}`);
  const seen = new Set<string>();
  return entries.map((entry) => {
    const match = NODE_PATTERN.exec(entry);
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65535) {
      throw new Error(`must be a comma-separated list of host:port seed nodes (port 1-65535), got entry "${entry}"`);
    }
    if (seen.has(entry)) throw new Error(`lists the node "${entry}" twice`);
    seen.add(entry);
    return { host: match[1] ?? match[2]!, port };
  });
}
