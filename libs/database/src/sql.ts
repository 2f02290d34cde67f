import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type pg from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Anything that runs a parameterised statement inside (or outside) a
 * transaction: a pg client from `Sql.transaction`, or a TypeORM EntityManager.
 */
export interface SqlExecutor {
  query(text: string, parameters: unknown[]): Promise<unknown>;
}

/**
 * Plain SQL on the same pool TypeORM uses, for the hot request paths where the
 * query builder's per-call work shows up in the benchmarks. Statements are
 * fixed strings with parameters, never concatenated input.
 */
@Injectable()
export class Sql {
  private readonly pool: pg.Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as unknown as { master: pg.Pool }).master;
  }

  async rows<T>(text: string, parameters: unknown[]): Promise<T[]> {
    return (await this.pool.query(text, parameters)).rows as T[];
  }

  async transaction<T>(work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
