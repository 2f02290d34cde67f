import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { EntitySchema, MixedList } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseOptions {
  url: string;
  poolMax?: number;
  /**
   * The entities to map. The apps leave this out: each feature lib registers
   * its own tables (TypeOrmModule.forFeature) and the data source loads them.
   */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
}

/** Longest wait for a free pool connection (or a new one); past it the statement fails. */
export const POOL_CONNECT_TIMEOUT_MS = 5_000;

export function dataSourceOptions(options: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    entities: options.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    // The schema comes from reviewed migration files, never from the entities.
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: {
      max: options.poolMax ?? 10,
      application_name: 'session-analysis-service',
      // A request waits at most this long for a connection, then answers 503 instead of hanging.
      connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    },
  };
}

export function createDataSource(options: DatabaseOptions): DataSource {
  return dataSourceOf(dataSourceOptions(options));
}

/**
 * A DataSource that also knows PostgreSQL's `oid` (a large object's id, as
 * `reports.content_oid` holds): TypeORM's driver leaves it off its list of
 * types, and would refuse the entity that declares it.
 */
export function dataSourceOf(options: DataSourceOptions): DataSource {
  const dataSource = new DataSource(options);
  const types = dataSource.driver.supportedDataTypes;
  if (!types.includes('oid' as never)) types.push('oid' as never);
  return dataSource;
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '' || name === 'postgres') return;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } catch (error) {
        // Another process created it between our check and our create.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

/** Applies pending migrations; returns the names of those it ran. */
export async function runMigrations(options: DatabaseOptions): Promise<string[]> {
  await ensureDatabase(options.url);
  const dataSource = createDataSource(options);
  await dataSource.initialize();
  try {
    const ran = await dataSource.runMigrations({ transaction: 'each' });
    return ran.map((migration) => migration.name);
  } finally {
    await dataSource.destroy();
  }
}
