import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { ADMIN_URL, deleteRedisKeys } from './global-setup.js';

/**
 * What one test file has to itself: a database copied from the run's
 * migrated template, and a Redis namespace. Set before the file's own hooks
 * run (this module is a setup file of the e2e project), dropped after them.
 */
interface FileScope {
  databaseName: string;
  databaseUrl: string;
  redisPrefix: string;
}

// On globalThis, not in a module variable: Vitest runs a setup file afresh for every test file
// while the modules that read the scope (stack.ts) stay loaded from the first.
const KEY = Symbol.for('sas.test-file-scope');
const holder = globalThis as { [KEY]?: FileScope | null };

function scope(): FileScope {
  const current = holder[KEY];
  if (!current) throw new Error('no test file scope: is test/support/scope.ts a setup file?');
  return current;
}

/** This file's own database. */
export function testDatabaseUrl(): string {
  return scope().databaseUrl;
}

/** This file's own Redis namespace (REDIS_PREFIX). */
export function testRedisPrefix(): string {
  return scope().redisPrefix;
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  const suffix = randomBytes(3).toString('hex');
  const databaseName = `${inject('templateDatabase')}_${suffix}`;
  await withAdmin((admin) =>
    admin.query(
      `CREATE DATABASE ${pg.escapeIdentifier(databaseName)} TEMPLATE ${pg.escapeIdentifier(inject('templateDatabase'))}`,
    ),
  );
  const url = new URL(ADMIN_URL);
  url.pathname = `/${databaseName}`;
  holder[KEY] = {
    databaseName,
    databaseUrl: url.toString(),
    redisPrefix: `sas-test-${inject('testRun')}-${suffix}`,
  };
});

afterAll(async () => {
  const finished = holder[KEY];
  holder[KEY] = null;
  if (!finished) return;
  await withAdmin((admin) =>
    admin.query(
      `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(finished.databaseName)} WITH (FORCE)`,
    ),
  );
  await deleteRedisKeys(`${finished.redisPrefix}:`);
});
