import { DataSource, type QueryRunner } from 'typeorm';

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
  const own = new DataSource(dataSource.options);
  const createQueryRunner = own.createQueryRunner.bind(own);
  own.createQueryRunner = (mode) => oneQueryAtATime(createQueryRunner(mode));
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
