import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import type { Tenant } from '#common';
import { ReadReplicas } from './replicas/read-replicas.js';
import { WritePositions } from './replicas/write-positions.js';

/**
 * Anything that runs a parameterised statement inside (or outside) a
 * transaction: a pg client from `Sql.transaction`, or a TypeORM EntityManager.
 */
export interface SqlExecutor {
  query(text: string, parameters: unknown[]): Promise<unknown>;
}

/** Runs the reads of one request that may be served by a read replica (`Sql.reader`). */
export interface SqlReader {
  rows<T>(text: string, parameters: unknown[]): Promise<T[]>;
}

/**
 * Plain SQL on the same pool TypeORM uses, for the hot request paths where the
 * query builder's per-call work shows up in the benchmarks. Statements are
 * fixed strings with parameters, never concatenated input.
 */
@Injectable()
export class Sql {
  private readonly pool: pg.Pool;
  private readonly primaryReader: SqlReader;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly replicas: ReadReplicas,
    private readonly writes: WritePositions,
  ) {
    this.pool = (dataSource.driver as unknown as { master: pg.Pool }).master;
    this.primaryReader = { rows: (text, parameters) => this.rows(text, parameters) };
  }

  async rows<T>(text: string, parameters: unknown[]): Promise<T[]> {
    return (await this.pool.query(text, parameters)).rows as T[];
  }

  /**
   * Where a tenant's list, search and analytics reads run: a read replica
   * (DATABASE_REPLICA_URLS, round robin) that has replayed the tenant's own
   * last write, else the primary. Choose once per request, so the statements
   * of one answer (a page and its count) see the same snapshot of time. A
   * replica that fails a statement is taken out of turn and the primary
   * answers it instead: a replica never turns a read into an error.
   */
  async reader(tenant: Tenant): Promise<SqlReader> {
    if (!this.replicas.configured) return this.primaryReader;
    const replica = this.replicas.choose(await this.writes.lastWrite(tenant));
    if (!replica) return this.primaryReader;
    return {
      rows: async <T>(text: string, parameters: unknown[]) => {
        try {
          return (await replica.query(text, parameters)).rows as T[];
        } catch (error) {
          if (!isReplicaTrouble(error)) throw error;
          this.replicas.failed(replica);
          return this.rows<T>(text, parameters);
        }
      },
    };
  }

  async transaction<T>(work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection lost between two statements (PostgreSQL restarted) is an 'error' event on
    // the client, which would end the process unheard; the next statement fails with it
    // instead, and the pool drops the dead client when it is released.
    client.on('error', ignoreLostConnection);
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.removeListener('error', ignoreLostConnection);
      client.release();
    }
  }
}

/**
 * A failure of the replica rather than of the statement: no connection (no
 * SQLSTATE, or class 08), the server going away (class 57), or a query
 * cancelled by a conflict with WAL replay (40001). The primary can answer
 * those; a statement's own error (bad input, …) it would only repeat.
 */
function isReplicaTrouble(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('57') || code === '40001';
}

function ignoreLostConnection(): void {}
