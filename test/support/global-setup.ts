import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '#database';

export const ADMIN_URL =
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * One template database per test run, migrated once with the real
 * migrations; every test file gets a copy of its own (test/support/scope.ts),
 * and its own Redis namespace, so files run in parallel without seeing each
 * other's work. Everything is dropped at the end.
 */
export default async function setup(project: TestProject) {
  const run = randomBytes(4).toString('hex');
  const template = `sas_test_${run}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${template}`;
  await runMigrations({ url: url.toString() });
  project.provide('templateDatabase', template);
  project.provide('testRun', run);

  return async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    // Copies a file could not drop (it was killed) go with the template.
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${template}%`],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
    await admin.end();
    await deleteRedisKeys(`sas-test-${run}`);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    testRun: string;
  }
}

export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}
