import type { Readable } from 'node:stream';
import type pg from 'pg';
import QueryStream from 'pg-query-stream';

/** What a statement returns: its rows and how many rows it touched. */
export interface QueryOutcome<R> {
  rows: R[];
  rowCount: number | null;
}

/**
 * Where a repository runs a statement: the pool (`Sql`), a read replica
 * (`Sql.reader`), or one unit of work (`Transaction`). Statements are fixed
 * strings with parameters, never concatenated input.
 */
export interface Queryable {
  query<R = Record<string, unknown>>(
    text: string,
    parameters?: readonly unknown[],
  ): Promise<QueryOutcome<R>>;
  rows<R>(text: string, parameters?: readonly unknown[]): Promise<R[]>;
}

/**
 * Rethrows a statement's failure with the statement's text as `query`, which
 * the log serializer keeps (and never the parameters), so a logged failure
 * names the statement that failed.
 */
export function failedStatement(error: unknown, text: string): never {
  if (error instanceof Error && !('query' in error)) {
    Object.defineProperty(error, 'query', { value: text, enumerable: false });
  }
  throw error;
}

/**
 * One pooled connection held for a piece of work (`Sql.connection`): for
 * what must share a session, such as an advisory lock taken and used by one
 * multi-statement query. Most code wants a `Transaction`.
 */
export class Connection implements Queryable {
  /** Made by `Sql`; the client stays checked out until the work given to `Sql` ends. */
  constructor(protected readonly client: pg.PoolClient) {}

  query<R = Record<string, unknown>>(
    text: string,
    parameters: readonly unknown[] = [],
  ): Promise<QueryOutcome<R>> {
    return this.client
      .query<R & pg.QueryResultRow>(text, parameters as unknown[])
      .catch((error: unknown) => failedStatement(error, text));
  }

  async rows<R>(text: string, parameters: readonly unknown[] = []): Promise<R[]> {
    return (await this.query<R>(text, parameters)).rows;
  }

  /**
   * Several statements without parameters in one round trip (PostgreSQL's
   * simple protocol), one outcome per statement. Numbers written into the
   * text must be checked integers.
   */
  async statements<R>(text: string): Promise<QueryOutcome<R>[]> {
    const result = (await this.client.query(text)) as unknown as
      QueryOutcome<R>[] | QueryOutcome<R>;
    return Array.isArray(result) ? result : [result];
  }

  /** The rows of one statement read through a cursor, `batchSize` rows per round trip. */
  cursor(text: string, parameters: readonly unknown[], batchSize: number): Readable {
    return this.client.query(new QueryStream(text, parameters as unknown[], { batchSize }));
  }
}

/**
 * One unit of work: every repository a service calls with it runs its
 * statements in the same PostgreSQL transaction, so they commit (or roll
 * back) together — a state change and the event announcing it, above all.
 * Started only by `Sql.transaction`, which commits when the work resolves.
 */
export class Transaction extends Connection {
  /** Nominal: an object with a `query` method is not a transaction. */
  private readonly unitOfWork = true;

  /** True; the field exists only so the type cannot be satisfied structurally. */
  get open(): boolean {
    return this.unitOfWork;
  }
}
