// A Redis Cluster of a suite's own: three masters and three replicas on loopback, in a temporary
// directory, without persistence. A test may kill a node (a master: its replica takes over).
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { launchRedisServer } from './redis-server.js';
import { unusedPort } from './unused-port.js';

const run = promisify(execFile);
const NODES = 6;
/** A node also listens on its port + 10000 (the cluster bus), so its own port must stay below this. */
const HIGHEST_NODE_PORT = 65535 - 10000;
const NODE_TIMEOUT_MS = 2000;
const SETTLE_TIMEOUT_MS = 30_000;

export interface OwnRedisCluster {
  /** The seed nodes as REDIS_CLUSTER_NODES takes them. */
  readonly nodes: string;
  readonly ports: readonly number[];
  /** The ports of the nodes that are masters with slots now, as the live nodes agree. */
  masters(): Promise<number[]>;
  /** Kills a node with SIGKILL. */
  kill(port: number): Promise<void>;
  /** Resolves once a killed master's slots are served by a promoted replica and every live node says the cluster is ok. */
  untilFailedOver(port: number): Promise<void>;
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Ports nothing listens on, each with its bus port free too. */
async function nodePorts(): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < NODES) {
    const port = await unusedPort();
    if (port <= HIGHEST_NODE_PORT && !ports.includes(port) && (await portIsFree(port + 10000))) ports.push(port);
  }
  return ports;
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
  return launchRedisServer([...args, '--cluster-node-timeout', String(NODE_TIMEOUT_MS), '--appendonly', 'no', '--save', '', '--dir', dir]);
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

/** `cluster nodes` as a node sees it: each node's port, flags and whether it serves slots. */
async function clusterView(port: number): Promise<Array<{ port: number; flags: string[]; slots: boolean }>> {
  return (await cli(port, 'cluster', 'nodes'))
    .trim()
    .split('\n')
    .map((line) => {
      const fields = line.split(' ');
      return { port: Number(fields[1]!.split('@')[0]!.split(':').at(-1)), flags: fields[2]!.split(','), slots: fields.length > 8 };
    });
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await pause(200);
  }
  throw new Error(`redis cluster: ${what} within ${SETTLE_TIMEOUT_MS} ms`);
}

export async function startRedisCluster(): Promise<OwnRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'pe-redis-cluster-'));
  const ports = await nodePorts();
  const servers = new Map<number, ChildProcess>();
  const live = () => [...servers.keys()];
  const stop = async () => {
    for (const server of servers.values()) server.kill('SIGKILL');
    servers.clear();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) servers.set(port, await launch(port, dir));
    await cli(ports[0]!, '--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '1', '--cluster-yes');
    // Ready: every node sees the cluster ok, and every master has its replica in sync (so it can take over).
    await until('every node ok and every master replicated', async () => {
      for (const port of ports) {
        if (!(await cli(port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
        const replication = await cli(port, 'info', 'replication');
        if (replication.includes('role:master') && !/connected_slaves:1/.test(replication)) return false;
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
      }
      return true;
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    async masters() {
      const view = await clusterView(live()[0]!);
      return view.filter((node) => node.flags.includes('master') && !node.flags.includes('fail') && node.slots).map((node) => node.port);
    },
    async kill(port) {
      const server = servers.get(port);
      if (server === undefined) throw new Error(`no live redis cluster node on ${port}`);
      servers.delete(port);
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
    },
    async untilFailedOver(port) {
      await until(`the slots of ${port} taken over`, async () => {
        for (const node of live()) {
          if (!(await cli(node, 'cluster', 'info')).includes('cluster_state:ok')) return false;
          const killed = (await clusterView(node)).find((entry) => entry.port === port);
          if (killed === undefined || !killed.flags.includes('fail') || killed.slots) return false;
        }
        return true;
      });
    },
    stop,
  };
}
