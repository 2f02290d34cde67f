import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './stack.js';

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
 * A private PostgreSQL primary and one streaming replica of it (physical
 * replication, `pg_basebackup -R`), each on a free port, in a temporary
 * directory: the shared server at 5432 is never reconfigured. PostgreSQL
 * refuses to run as root, so when the tests run as root the servers run as
 * the `postgres` user (`runuser`). Everything is stopped and removed by
 * `close`.
 */
export interface PrivateReplicatedCluster {
  primaryPort: number;
  replicaPort: number;
  /** postgres://postgres@127.0.0.1:PORT/<database> on the primary. */
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Runs one statement on the primary or the replica (maintenance database unless told). */
  query<T extends pg.QueryResultRow>(
    server: 'primary' | 'replica',
    text: string,
    database?: string,
  ): Promise<T[]>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  close(): Promise<void>;
}

function asPostgres(command: string, args: string[]): Promise<{ stdout: string }> {
  const root = process.getuid?.() === 0;
  return root ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

export async function startReplicatedCluster(): Promise<PrivateReplicatedCluster> {
  const bin = serverBinaries();
  const dir = await mkdtemp(join(tmpdir(), 'private-pg-'));
  // The servers run as `postgres`: they create their data directories in here.
  await chmod(dir, 0o777);
  const primaryDir = join(dir, 'primary');
  const replicaDir = join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started = new Set<string>();
  const pgCtl = (dataDir: string, ...args: string[]) =>
    asPostgres(join(bin, 'pg_ctl'), ['-D', dataDir, ...args]);
  const start = async (dataDir: string) => {
    await pgCtl(
      dataDir,
      '-l',
      join(dir, `${dataDir === primaryDir ? 'primary' : 'replica'}.log`),
      '-w',
      '-t',
      '60',
      'start',
    );
    started.add(dataDir);
  };
  const stop = async (dataDir: string) => {
    if (!started.has(dataDir)) return;
    await pgCtl(dataDir, '-m', 'fast', '-w', '-t', '60', 'stop');
    started.delete(dataDir);
  };
  const url = (port: number, database: string) =>
    `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;

  async function query<T extends pg.QueryResultRow>(
    server: 'primary' | 'replica',
    text: string,
    database = 'postgres',
  ): Promise<T[]> {
    const client = new pg.Client({
      connectionString: url(server === 'primary' ? primaryPort : replicaPort, database),
    });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  const cluster: PrivateReplicatedCluster = {
    primaryPort,
    replicaPort,
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    query,
    async caughtUp(timeoutMs = 30_000) {
      const [{ lsn }] = await query<{ lsn: string }>(
        'primary',
        'SELECT pg_current_wal_lsn()::text AS lsn',
      );
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [{ behind }] = await query<{ behind: boolean }>(
          'replica',
          `SELECT pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn AS behind`,
        );
        if (!behind) return;
        if (Date.now() > deadline) throw new Error(`the replica has not replayed ${lsn} yet`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async pauseReplay() {
      await query('replica', 'SELECT pg_wal_replay_pause()');
    },
    async resumeReplay() {
      await query('replica', 'SELECT pg_wal_replay_resume()');
    },
    stopReplica: () => stop(replicaDir),
    startReplica: () => start(replicaDir),
    async close() {
      await stop(replicaDir).catch(() => undefined);
      await stop(primaryDir).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };

  try {
    await asPostgres(join(bin, 'initdb'), [
      '-D',
      primaryDir,
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
    // Only TCP on 127.0.0.1 (sockets in our own directory); WAL kept for a streaming standby.
    await appendFile(
      join(primaryDir, 'postgresql.conf'),
      [
        `port = ${primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${dir}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        // Throwaway data: no need to wait for the disk.
        'fsync = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    await start(primaryDir);
    await asPostgres(join(bin, 'pg_basebackup'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    // The copied postgresql.conf names the primary's port: the last setting wins.
    await appendFile(join(replicaDir, 'postgresql.conf'), `port = ${replicaPort}\n`);
    await start(replicaDir);
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}
