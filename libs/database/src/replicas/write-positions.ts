import { Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import type { Tenant } from '#common';
import { AppSettings } from '#config';
import { RedisService } from '#queue';
import { parseLsn, type Lsn } from './lsn.js';
import { ReadReplicas } from './read-replicas.js';

/** Keeps the larger of the stored and the given position, and (re)starts its expiry. */
const REMEMBER_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local given = tonumber(ARGV[1])
if given > current then current = given end
redis.call('SET', KEYS[1], tostring(current), 'PX', ARGV[2])
return 1`;

/** Everything: what a reader must wait for when it cannot tell (Redis is away), so the primary serves. */
const UNKNOWN: Lsn = Number.POSITIVE_INFINITY;

/**
 * Read-your-writes across every API instance: after a tenant (organisation
 * and mode) writes, the primary's WAL position is remembered in Redis for
 * a little longer than replicas may lag (ReadReplicas.writeMemoryMs), and
 * that tenant's replica reads need a replica that has replayed past it.
 * This process also remembers its own tenants' writes, so a Redis outage
 * cannot hide a write from the instance that made it; while Redis is away,
 * reads it cannot vouch for go to the primary.
 */
@Injectable()
export class WritePositions {
  private readonly primary: pg.Pool;
  private readonly local = new Map<string, { lsn: Lsn; until: number }>();

  constructor(
    private readonly replicas: ReadReplicas,
    private readonly settings: AppSettings,
    @InjectDataSource() dataSource: DataSource,
    @Optional() private readonly redis?: RedisService,
  ) {
    this.primary = (dataSource.driver as unknown as { master: pg.Pool }).master;
  }

  /** Whether there are replicas, and so writes to remember. */
  get enabled(): boolean {
    return this.replicas.configured;
  }

  /**
   * Called after a tenant's write has committed: its position is where the
   * primary's WAL is now. Never fails: without the position (the primary went
   * away) the tenant reads from the primary for a while; without Redis, this
   * process still remembers.
   */
  async remember(tenant: Tenant): Promise<void> {
    if (!this.replicas.configured) return;
    const lsn = await this.primary
      .query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
      .then(({ rows }) => parseLsn(rows[0]!.lsn))
      .catch(() => Number.MAX_SAFE_INTEGER);
    const ttl = this.replicas.writeMemoryMs;
    const key = this.key(tenant);
    const now = Date.now();
    const known = this.local.get(key);
    this.local.set(key, {
      lsn: known && known.until > now ? Math.max(known.lsn, lsn) : lsn,
      until: now + ttl,
    });
    if (this.local.size > 10_000) this.forgetExpired(now);
    await this.redis?.client
      .eval(REMEMBER_SCRIPT, 1, key, String(lsn), String(ttl))
      .catch(() => undefined);
  }

  /** The position a replica must have replayed to serve this tenant (0: any replica will do). */
  async lastWrite(tenant: Tenant): Promise<Lsn> {
    const key = this.key(tenant);
    const known = this.local.get(key);
    const local = known && known.until > Date.now() ? known.lsn : 0;
    if (!this.redis) return local;
    try {
      const shared = await this.redis.client.get(key);
      return Math.max(local, shared === null ? 0 : Number(shared));
    } catch {
      return UNKNOWN;
    }
  }

  private key(tenant: Tenant): string {
    return `${this.settings.redisPrefix}:written-lsn:${tenant.organizationId}:${tenant.mode}`;
  }

  private forgetExpired(now: number): void {
    for (const [key, entry] of this.local) if (entry.until <= now) this.local.delete(key);
  }
}
