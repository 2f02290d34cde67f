import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import type { DataSource } from 'typeorm';
import type { Tenant } from '#common';
import {
  Connection,
  failedStatement,
  Transaction,
  type QueryOutcome,
  type Queryable,
} from './connection.js';
import { ReadReplicas } from './replicas/read-replicas.js';
import { WritePositions } from './replicas/write-positions.js';

/**
 * The service's one way to the database: parameterised SQL on the pool
 * TypeORM opens, run by repositories (docs/architecture.md, "Data layer").
 * TypeORM's entities describe the schema; its query builder and repository
 * API are not used, because their per-call work showed in the benchmarks.
 */
@Injectable()
export class Sql implements Queryable {
  private readonly pool: pg.Pool;
  private readonly primaryReader: Queryable;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly replicas: ReadReplicas,
    private readonly writes: WritePositions,
  ) {
    this.pool = (dataSource.driver as unknown as { master: pg.Pool }).master;
    this.primaryReader = this;
  }

  query<R = Record<string, unknown>>(
    text: string,
    parameters: readonly unknown[] = [],
  ): Promise<QueryOutcome<R>> {
    return this.pool
      .query<R & pg.QueryResultRow>(text, parameters as unknown[])
      .catch((error: unknown) => failedStatement(error, text));
  }

  async rows<T>(text: string, parameters: readonly unknown[] = []): Promise<T[]> {
    return (await this.query<T>(text, parameters)).rows;
  }

  /**
   * Where a tenant's list, search and analytics reads run: a read replica
   * (DATABASE_REPLICA_URLS, round robin) that has replayed the tenant's own
   * last write, else the primary. Choose once per request, so the statements
   * of one answer (a page and its count) see the same snapshot of time. A
   * replica that fails a statement is taken out of turn and the primary
   * answers it instead: a replica never turns a read into an error.
   */
  async reader(tenant: Tenant): Promise<Queryable> {
    if (!this.replicas.configured) return this.primaryReader;
    const replica = this.replicas.choose(await this.writes.lastWrite(tenant));
    if (!replica) return this.primaryReader;
    const query = async <R>(
      text: string,
      parameters: readonly unknown[] = [],
    ): Promise<QueryOutcome<R>> => {
      try {
        return await replica.query<R & pg.QueryResultRow>(text, parameters as unknown[]);
      } catch (error) {
        if (!isReplicaTrouble(error)) failedStatement(error, text);
        this.replicas.failed(replica);
        return this.query<R>(text, parameters);
      }
    };
    return {
      query,
      rows: async <R>(text: string, parameters: readonly unknown[] = []) =>
        (await query<R>(text, parameters)).rows,
    };
  }

  /** Resolves once PostgreSQL answers a statement (readiness checks); names no table. */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Runs `work` in one unit of work: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        const result = await work(new Transaction(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** Runs `work` on one connection outside a transaction (see `Connection`). */
  connection<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    return this.withClient((client) => work(new Connection(client)));
  }

  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection lost between two statements (PostgreSQL restarted) is an 'error' event on
    // the client, which would end the process unheard; the next statement fails with it
    // instead, and the pool drops the dead client when it is released.
    client.on('error', ignoreLostConnection);
    try {
      return await work(client);
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
