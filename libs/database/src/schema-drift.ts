import type { DataSource } from 'typeorm';

/** SQL the entities would need on top of the migrated schema; empty when they agree. */
export async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return sql.upQueries.map((query) => query.query);
}
