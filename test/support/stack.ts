import { createServer } from 'node:net';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { createApiApp } from '../../apps/api/src/app.js';
import { createWorker } from '../../apps/worker/src/worker.js';
import { parseSettings, type Settings } from '#config';
import { testDatabaseUrl, testRedisPrefix } from './scope.js';

export const BOOTSTRAP_CLIENT_ID = 'test-bootstrap-client';
export const BOOTSTRAP_CLIENT_SECRET = 'test-bootstrap-secret-0123456789';
export const BOOTSTRAP_ADMIN_EMAIL = 'admin@example.test';
export const BOOTSTRAP_ADMIN_PASSWORD = 'correct horse battery staple';

export interface Stack {
  baseUrl: string;
  settings: Settings;
  api: INestApplication;
  worker: INestApplicationContext | null;
  close(): Promise<void>;
}

/** Environment of a test process: the run's database, a private Redis namespace, fast simulated steps. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: testDatabaseUrl(),
    REDIS_PREFIX: testRedisPrefix(),
    BOOTSTRAP_CLIENT_ID,
    BOOTSTRAP_CLIENT_SECRET,
    BOOTSTRAP_ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    // As in production: secrets at rest and stored idempotent responses are sealed.
    SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef',
    SIMULATED_STEP_MS: '20',
    DATABASE_POOL_MAX: '5',
    // Every test comes from 127.0.0.1 and a run shares one Redis prefix, so the per-address
    // limits of the sign-in endpoints would count all test files together: they get their own
    // test (endpoint-rate-limits), and are out of the way everywhere else.
    TOKEN_RATE_PER_ADDRESS: '1000000',
    TOKEN_RATE_PER_CLIENT: '1000000',
    SIGN_IN_RATE_PER_ADDRESS: '1000000',
    // The same holds for the per-address budget of requests without a known credential.
    ANONYMOUS_RATE_PER_ADDRESS: '1000000',
    // A Redis of your own, say Compose's, with its password (the default is the local one).
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    // A dashboard built elsewhere than dist/dashboard (parallel builds while developing).
    ...(process.env.DASHBOARD_DIR ? { DASHBOARD_DIR: process.env.DASHBOARD_DIR } : {}),
    ...overrides,
  };
}

/** Settings of an in-process test app listening on `port`. */
export function testSettings(port: number, overrides: Record<string, string> = {}): Settings {
  return parseSettings(
    testEnv({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...overrides }),
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The real API (listening on a free port) and, unless told otherwise, the real worker, in this process. */
export async function startStack(
  options: { worker?: boolean; env?: Record<string, string> } = {},
): Promise<Stack> {
  const port = await freePort();
  const settings = testSettings(port, options.env);
  const api = await createApiApp(settings);
  await api.listen(port, '127.0.0.1');
  const worker = options.worker === false ? null : await createWorker(settings);
  const stack: Stack = {
    baseUrl: settings.publicUrl,
    settings,
    api,
    worker,
    // Reads stack.worker when closing: a test may have replaced the worker.
    async close() {
      await stack.worker?.close();
      await api.close();
    },
  };
  return stack;
}
