import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { AppSettings } from '#config';
import { POOL_CONNECT_TIMEOUT_MS } from '../data-source.js';
import { parseLsn, type Lsn } from './lsn.js';

/** How often each process samples the primary's WAL position and every replica's replay position. */
export const REPLICA_CHECK_MS = 200;
/** Longest a replica's position check may take; past it the replica counts as down. */
const CHECK_TIMEOUT_MS = 1_000;

/** What one process knows about one streaming replica, from its last check. */
interface Replica {
  /** Position 1, 2, … in DATABASE_REPLICA_URLS: the URL itself may hold a password. */
  readonly name: string;
  readonly pool: pg.Pool;
  /** Reachable and in recovery (a promoted or unreachable server serves no reads). */
  up: boolean;
  /** WAL replayed so far (`pg_last_wal_replay_lsn()`); only ever grows while the replica is up. */
  replayed: Lsn;
  /** The replica holds every commit the primary had made by this time (ms since the epoch). */
  caughtUpTo: number;
}

/** The primary's WAL position at a moment: everything committed before `at` is at or before `lsn`. */
interface PrimarySample {
  at: number;
  lsn: Lsn;
}

/**
 * The streaming replicas of DATABASE_REPLICA_URLS, chosen round robin for the
 * reads that may be a moment stale (lists, search, analytics). Each process
 * checks every replica's replay position and the primary's WAL position
 * every REPLICA_CHECK_MS (first when a read asks), so choosing costs no
 * round trip. A replica serves a read only when it is up, no further behind
 * the primary than DATABASE_REPLICA_MAX_LAG_MS, and has replayed the
 * caller's last write (`atLeast`); otherwise `choose` answers null and the
 * primary serves: a slow or dead replica is never an error.
 */
@Injectable()
export class ReadReplicas implements OnModuleDestroy {
  private readonly replicas: Replica[];
  private readonly primary: pg.Pool;
  private readonly maxLagMs: number;
  private samples: PrimarySample[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(settings: AppSettings, @InjectDataSource() dataSource: DataSource) {
    this.primary = (dataSource.driver as unknown as { master: pg.Pool }).master;
    this.maxLagMs = settings.databaseReplicaMaxLagMs;
    this.replicas = settings.databaseReplicaUrls.map((url, index) => ({
      name: `replica ${index + 1}`,
      pool: replicaPool(url, settings.databasePoolMax),
      up: false,
      replayed: 0,
      caughtUpTo: 0,
    }));
  }

  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /** How long a write must be remembered: past it, every replica `choose` picks has replayed it. */
  get writeMemoryMs(): number {
    return this.maxLagMs + 1_000;
  }

  /**
   * The next usable replica's pool, round robin, or null for the primary.
   * `atLeast`: the WAL position the reader's own last write reached.
   */
  choose(atLeast: Lsn): pg.Pool | null {
    this.startChecking();
    const now = Date.now();
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[this.next++ % this.replicas.length]!;
      if (replica.up && replica.replayed >= atLeast && now - replica.caughtUpTo <= this.maxLagMs) {
        return replica.pool;
      }
    }
    return null;
  }

  /** A read on `pool` failed: take its replica out of turn until its next check succeeds. */
  failed(pool: pg.Pool): void {
    const replica = this.replicas.find((candidate) => candidate.pool === pool);
    if (replica) replica.up = false;
  }

  /** Each replica's state, for health reports and tests; never the URLs (they may hold passwords). */
  describe(): { name: string; up: boolean; lagMs: number | null }[] {
    const now = Date.now();
    return this.replicas.map(({ name, up, caughtUpTo }) => ({
      name,
      up,
      lagMs: up ? now - caughtUpTo : null,
    }));
  }

  private startChecking(): void {
    if (this.timer || this.replicas.length === 0) return;
    this.timer = setInterval(() => void this.check(), REPLICA_CHECK_MS);
    this.timer.unref();
    void this.check();
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      await this.samplePrimary();
      await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
    } finally {
      this.checking = false;
    }
  }

  private async samplePrimary(): Promise<void> {
    const at = Date.now();
    try {
      const { rows } = await this.primary.query<{ lsn: string }>({
        text: 'SELECT pg_current_wal_lsn()::text AS lsn',
        query_timeout: CHECK_TIMEOUT_MS,
      } as pg.QueryConfig);
      this.samples.push({ at, lsn: parseLsn(rows[0]!.lsn) });
    } catch {
      // The primary is away: no new sample, so replicas' lag grows until they are skipped.
    }
    // Older samples cannot make a replica usable any more: it would be past the lag bound.
    const horizon = at - this.maxLagMs - REPLICA_CHECK_MS;
    while (this.samples.length > 1 && this.samples[0]!.at < horizon) this.samples.shift();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ lsn: string | null }>({
        text: 'SELECT pg_last_wal_replay_lsn()::text AS lsn',
        query_timeout: CHECK_TIMEOUT_MS,
      } as pg.QueryConfig);
      const replayed = rows[0]?.lsn;
      // NULL: not in recovery (promoted, or not a replica at all), so not kept in step by WAL.
      if (!replayed) {
        replica.up = false;
        return;
      }
      replica.replayed = parseLsn(replayed);
      // The newest primary sample the replica has replayed: it holds every commit made before then.
      for (let index = this.samples.length - 1; index >= 0; index--) {
        const sample = this.samples[index]!;
        if (sample.lsn <= replica.replayed) {
          replica.caughtUpTo = Math.max(replica.caughtUpTo, sample.at);
          break;
        }
      }
      replica.up = true;
    } catch {
      replica.up = false;
    }
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }
}

/** A replica's pool, sized and configured like the primary's (data-source.ts). */
function replicaPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: 'session-analysis-service-reads',
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
  });
  // An idle client's connection dropped (the replica restarted): the pool replaces it.
  pool.on('error', () => undefined);
  return pool;
}
