import swc from 'unplugin-swc';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { DEADLINE_MS, TEST_TIMEOUT_MS } from './test/support/wait.js';

/** `source` resolves the #aliases of package.json to the TypeScript sources instead of dist/. */
const conditions = ['source', ...defaultServerConditions];

/**
 * Test files run at once in the e2e project: they mostly wait on PostgreSQL,
 * Redis and timers, so more files than cores keeps both busy. VITEST_E2E_WORKERS sets it.
 */
const E2E_WORKERS = Number(process.env.VITEST_E2E_WORKERS ?? 3);

/**
 * Two projects: `unit` (the `*.spec.ts` beside the code: pure, no PostgreSQL
 * or Redis, seconds) and `e2e` (`test/`: the real apps against real
 * PostgreSQL and Redis). `npm test` runs both; `npm run test:unit` the first.
 */
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // oidc-provider says once per process that the API parsed a body before it: on purpose
    // (the token endpoint's form is read for rate limits and the default scope first).
    onConsoleLog: (log) =>
      log.includes('oidc-provider WARNING: already parsed request body') ? false : undefined,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // The projects run one after the other: unit first, so a broken rule fails in seconds.
          sequence: { groupOrder: 0 },
          include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'packages/*/src/**/*.spec.ts'],
          // Pure code: one module graph per thread is safe, and several times faster.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 1 },
          include: ['test/**/*.e2e-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // Each file gets a database and a Redis namespace of its own (test/support/scope.ts),
          // so files run side by side: a worker booted by one never sees another's work.
          setupFiles: ['test/support/scope.ts'],
          pool: 'forks',
          // Files share one module graph per worker: booting Nest is the slow part, not the tests.
          isolate: false,
          fileParallelism: true,
          maxWorkers: E2E_WORKERS,
          // Deadlines, not waits: tests wait for conditions, each for up to DEADLINE_MS
          // (test/support/wait.ts), and a test or hook may run longer than any one wait. A loaded
          // shared machine booting several API instances at once must not fail them.
          testTimeout: TEST_TIMEOUT_MS,
          hookTimeout: TEST_TIMEOUT_MS,
          expect: { poll: { timeout: DEADLINE_MS } },
        },
      },
    ],
  },
});
