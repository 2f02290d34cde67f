import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './stack.js';
import { DEADLINE_MS } from './wait.js';

const run = promisify(execFile);

/**
 * The server binaries: TEST_PG_BIN, else the newest Debian `postgresql-N`
 * under /usr/lib/postgresql (CI installs `postgresql`, as for the shared server).
 */
function serverBinaries(): string {
  if (process.env.TEST_PG_BIN) return process.env.TEST_PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'pg_basebackup')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      `no PostgreSQL server binaries under ${root} (Debian package postgresql); set TEST_PG_BIN`,
    );
  }
  return join(root, versions[0]!, 'bin');
}

/**
 * A private PostgreSQL primary and streaming replicas of it (physical
 * replication, `pg_basebackup -R`), each on a free port, in a temporary
 * directory: the shared server at 5432 is never reconfigured. PostgreSQL
 * refuses to run as root, so when the tests run as root the servers run as
 * the `postgres` user (`runuser`). Everything is stopped and removed by
 * `close`. Replicas are numbered from 0.
 */
export interface PrivateReplicatedCluster {
  /** postgres://postgres@127.0.0.1:PORT/<database> on the primary. */
  primaryUrl(database: string): string;
  replicaUrl(database: string, replica?: number): string;
  /** Runs one statement on the primary or a replica (the maintenance database unless told). */
  query<T extends pg.QueryResultRow>(
    server: 'primary' | { replica: number },
    text: string,
    database?: string,
  ): Promise<T[]>;
  /** Waits until the running, unpaused replicas have replayed everything the primary has written. */
  caughtUp(timeoutMs?: number): Promise<void>;
  pauseReplay(replica?: number): Promise<void>;
  resumeReplay(replica?: number): Promise<void>;
  stopReplica(replica?: number): Promise<void>;
  startReplica(replica?: number): Promise<void>;
  close(): Promise<void>;
}

function asPostgres(command: string, args: string[]): Promise<{ stdout: string }> {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

interface Server {
  name: string;
  dataDir: string;
  port: number;
  running: boolean;
  paused: boolean;
}

export async function startReplicatedCluster(
  options: { replicas?: number } = {},
): Promise<PrivateReplicatedCluster> {
  const bin = serverBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'private-pg-'));
  // The servers run as `postgres`: they create their data directories in here.
  await chmod(dir, 0o777);
  const server = async (name: string): Promise<Server> => ({
    name,
    dataDir: join(dir, name),
    port: await freePort(),
    running: false,
    paused: false,
  });
  const primary = await server('primary');
  const replicas: Server[] = [];
  for (let index = 0; index < (options.replicas ?? 1); index++) {
    replicas.push(await server(`replica-${index}`));
  }
  const replica = (index: number) => {
    const found = replicas[index];
    if (!found) throw new Error(`there is no replica ${index}`);
    return found;
  };
  const pgCtl = (target: Server, ...args: string[]) =>
    asPostgres(join(bin, 'pg_ctl'), ['-D', target.dataDir, ...args]);
  const start = async (target: Server) => {
    await pgCtl(target, '-l', join(dir, `${target.name}.log`), '-w', '-t', '60', 'start');
    target.running = true;
    // A replica starts replaying, whatever it did before it stopped.
    target.paused = false;
  };
  const stop = async (target: Server) => {
    if (!target.running) return;
    await pgCtl(target, '-m', 'fast', '-w', '-t', '60', 'stop');
    target.running = false;
  };
  const url = (port: number, database: string) =>
    `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;

  async function query<T extends pg.QueryResultRow>(
    target: 'primary' | { replica: number },
    text: string,
    database = 'postgres',
  ): Promise<T[]> {
    const port = target === 'primary' ? primary.port : replica(target.replica).port;
    const client = new pg.Client({ connectionString: url(port, database) });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  const cluster: PrivateReplicatedCluster = {
    primaryUrl: (database) => url(primary.port, database),
    replicaUrl: (database, index = 0) => url(replica(index).port, database),
    query,
    async caughtUp(timeoutMs = DEADLINE_MS) {
      const [{ lsn }] = await query<{ lsn: string }>(
        'primary',
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      const deadline = Date.now() + timeoutMs;
      for (const [index, target] of replicas.entries()) {
        if (!target.running || target.paused) continue;
        for (;;) {
          const [{ behind }] = await query<{ behind: boolean }>(
            { replica: index },
            `SELECT pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn AS behind`,
          );
          if (!behind) break;
          if (Date.now() > deadline) {
            throw new Error(`${target.name} has not replayed ${lsn} yet`);
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
    async pauseReplay(index = 0) {
      await query({ replica: index }, 'SELECT pg_wal_replay_pause()');
      replica(index).paused = true;
    },
    async resumeReplay(index = 0) {
      await query({ replica: index }, 'SELECT pg_wal_replay_resume()');
      replica(index).paused = false;
    },
    stopReplica: (index = 0) => stop(replica(index)),
    startReplica: (index = 0) => start(replica(index)),
    async close() {
      for (const target of [...replicas, primary]) await stop(target).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    await asPostgres(join(bin, 'initdb'), [
      '-D',
      primary.dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale',
      'C.UTF-8',
    ]);
    // Only TCP on 127.0.0.1 (sockets in our own directory); WAL kept for streaming standbys.
    await appendFile(
      join(primary.dataDir, 'postgresql.conf'),
      [
        `port = ${primary.port}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dir}'`,
        'wal_level = replica',
        'max_wal_senders = 10',
        'hot_standby = on',
        // Throwaway data: no need to wait for the disk.
        'fsync = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    await start(primary);
    for (const target of replicas) {
      await asPostgres(join(bin, 'pg_basebackup'), [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        target.dataDir,
        '-R',
        '-X',
        'stream',
        '--no-sync',
      ]);
      // The copied postgresql.conf names the primary's port: the last setting wins.
      await appendFile(join(target.dataDir, 'postgresql.conf'), `port = ${target.port}\n`);
      await start(target);
    }
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}
