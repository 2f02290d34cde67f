import type { DataSource, QueryRunner } from 'typeorm';
import { dataSourceOf } from './data-source.js';

/**
 * SQL the entities would need on top of the migrated schema; empty when they agree.
 *
 * TypeORM's schema builder reads the columns of every table with concurrent
 * queries on its one connection (Promise.all in PostgresQueryRunner.loadTables,
 * for enum and array columns), which pg deprecates ("Calling client.query() when
 * the client is already executing a query", an error from pg 9). It runs here on
 * a DataSource of its own, with the same options, whose query runners send one
 * query at a time; the application's DataSource is left alone.
 */
export async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const own = dataSourceOf(dataSource.options);
  const createQueryRunner = own.createQueryRunner.bind(own);
  own.createQueryRunner = (mode) =>
    generatedColumnsFromCatalog(oneQueryAtATime(createQueryRunner(mode)));
  await own.initialize();
  try {
    const sql = await own.driver.createSchemaBuilder().log();
    return sql.upQueries.map((query) => query.query);
  } finally {
    await own.destroy();
  }
}

/** Makes `runner.query` wait for the previous query to settle before sending the next. */
function oneQueryAtATime(runner: QueryRunner): QueryRunner {
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  let previous: Promise<unknown> = Promise.resolve();
  runner.query = ((...args: unknown[]) => {
    const result = previous.then(() => query(...args));
    previous = result.catch(() => undefined);
    return result;
  }) as QueryRunner['query'];
  return runner;
}

/**
 * TypeORM reads a generated column's expression from its own
 * `typeorm_metadata` table, which it fills only when it creates the column
 * itself; the migrations create them (history_cases' `document` and
 * `earth`), so that table does not exist. Its question is answered from
 * PostgreSQL's catalogue instead, whose text the entities then declare.
 */
function generatedColumnsFromCatalog(runner: QueryRunner): QueryRunner {
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((text: string, parameters?: unknown[], ...rest: unknown[]) => {
    if (text.includes('"typeorm_metadata"') && parameters?.[0] === 'GENERATED_COLUMN') {
      const [, column, , schema, table] = parameters;
      return query(
        `SELECT generation_expression AS value FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = $2 AND column_name = $3`,
        [schema, table, column],
      );
    }
    return query(text, parameters, ...rest);
  }) as QueryRunner['query'];
  return runner;
}
