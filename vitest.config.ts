import swc from 'unplugin-swc';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** `source` resolves the #aliases of package.json to the TypeScript sources instead of dist/. */
const conditions = ['source', ...defaultServerConditions];

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['libs/**/*.spec.ts', 'apps/**/*.spec.ts', 'test/**/*.e2e-spec.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Files share one module graph per worker: booting Nest is the slow part, not the tests.
    isolate: false,
    // One file at a time: every file shares the run's database and Redis namespace,
    // so a worker booted by one file must not pick up another file's sessions.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
