import swc from 'unplugin-swc';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** `source` resolves the #aliases of package.json to the TypeScript sources instead of dist/. */
const conditions = ['source', ...defaultServerConditions];

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
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts'],
          // Pure code: one module graph per thread is safe, and several times faster.
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          pool: 'forks',
          // Files share one module graph per worker: booting Nest is the slow part, not the tests.
          isolate: false,
          // One file at a time: every file shares the run's database and Redis namespace,
          // so a worker booted by one file must not pick up another file's sessions.
          fileParallelism: false,
        },
      },
    ],
  },
});
