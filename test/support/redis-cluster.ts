import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './stack.js';
import { DEADLINE_MS } from './wait.js';

const run = promisify(execFile);

/**
 * A private three-master Redis Cluster (the system's redis-server and
 * redis-cli, no replicas, no persistence) in a temporary directory: what
 * REDIS_CLUSTER_NODES points at in tests.
 */
export interface PrivateRedisCluster {
  /** `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`: the value of REDIS_CLUSTER_NODES. */
  readonly nodes: string;
  readonly ports: number[];
  /** Keys held by each node (DBSIZE), in the order of `ports`. */
  keysPerNode(): Promise<number[]>;
  /** Keys matching `pattern` across the cluster (SCAN on every node). */
  keys(pattern: string): Promise<string[]>;
  /** Whether the nodes are running (false between `stop` and `start`). */
  readonly running: boolean;
  /** Takes every node away (SIGKILL): the whole cluster is down. */
  stop(): Promise<void>;
  /** Starts the nodes again on their ports, empty but with their cluster configuration; resolves at `cluster_state:ok`. */
  start(): Promise<void>;
  /** Stops the servers and removes their directory. */
  close(): Promise<void>;
}

export async function startPrivateRedisCluster(
  options: { readyTimeoutMs?: number } = {},
): Promise<PrivateRedisCluster> {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEADLINE_MS;
  const dir = await mkdtemp(join(tmpdir(), 'private-redis-cluster-'));
  const ports: number[] = [];
  let servers: ChildProcess[] = [];
  let output = '';

  async function startNodes(): Promise<void> {
    servers = ports.map((port) => {
      const nodeDir = join(dir, String(port));
      const server = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          // Written at `cluster create`: a restarted node rejoins the same cluster.
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--dir',
          nodeDir,
          '--logfile',
          '',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      liveServers.add(server);
      server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      return server;
    });
    await waitUntil(readyTimeoutMs, async () => {
      const pongs = await Promise.all(ports.map((port) => nodeCommand(port, ['ping'])));
      return pongs.every((reply) => reply === 'PONG');
    }).catch((error: Error) => {
      throw new Error(`${error.message}: the cluster's servers did not start; output:\n${output}`);
    });
  }

  /** Every node must agree the slots are covered before a client may rely on it. */
  function clusterOk(): Promise<void> {
    return waitUntil(readyTimeoutMs, async () => {
      const infos = await Promise.all(ports.map((port) => nodeCommand(port, ['cluster', 'info'])));
      return infos.every((info) => String(info).includes('cluster_state:ok'));
    });
  }

  async function stop(): Promise<void> {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            liveServers.delete(server);
            if (server.exitCode !== null || server.signalCode !== null) return resolve();
            server.once('close', () => resolve());
            server.kill('SIGKILL');
          }),
      ),
    );
    servers = [];
  }

  async function close(): Promise<void> {
    await stop();
    await rm(dir, { recursive: true, force: true });
  }

  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(ports);
      await mkdir(join(dir, String(port)));
      ports.push(port);
    }
    await startNodes();
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await clusterOk();
  } catch (error) {
    await close();
    throw error;
  }

  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    keysPerNode: () =>
      Promise.all(ports.map(async (port) => Number(await nodeCommand(port, ['dbsize'])))),
    async keys(pattern) {
      const perNode = await Promise.all(
        ports.map(async (port) => {
          const node = new Redis(port, '127.0.0.1', { lazyConnect: true });
          try {
            await node.connect();
            const found: string[] = [];
            let cursor = '0';
            do {
              const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
              found.push(...batch);
              cursor = next;
            } while (cursor !== '0');
            return found;
          } finally {
            node.disconnect();
          }
        }),
      );
      return perNode.flat();
    },
    get running() {
      return servers.length > 0;
    },
    stop,
    async start() {
      if (servers.length > 0) throw new Error('the private cluster is already running');
      await startNodes();
      await clusterOk();
    },
    close,
  };
}

/** One command to one node, on a connection of its own (not cluster-aware). */
async function nodeCommand(port: number, args: [string, ...string[]]): Promise<unknown> {
  const node = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  node.on('error', () => undefined);
  try {
    await node.connect();
    return await node.call(...args);
  } catch {
    return null;
  } finally {
    node.disconnect();
  }
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 > 65_535 || taken.includes(port)) continue;
    if (await isFree(port + 10_000)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function waitUntil(timeoutMs: number, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** Servers still running when the test process exits are killed, not left behind. */
const liveServers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of liveServers) server.kill('SIGKILL');
});
