import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '#database';

const ADMIN_URL =
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * One database per test run, migrated with the real migrations and dropped
 * afterwards; tests isolate themselves by creating their own organisations.
 */
export default async function setup(project: TestProject) {
  const name = `sas_test_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  await runMigrations({ url: url.toString() });
  project.provide('databaseUrl', url.toString());
  const redisPrefix = `sas-test-${randomBytes(4).toString('hex')}`;
  project.provide('redisPrefix', redisPrefix);

  return async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.end();
    await deleteRedisKeys(redisPrefix);
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisPrefix: string;
  }
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}
