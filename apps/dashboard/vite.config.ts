// The dashboard's build: `vite build --config apps/dashboard/vite.config.ts` → dist/dashboard,
// served by the API at /dashboard (apps/api/src/dashboard/dashboard-assets.ts).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/dashboard/',
  plugins: [react()],
  // The SDK from its TypeScript source (its "source" export), as the dashboard's typecheck reads
  // it: a change to the SDK shows in the next dashboard build without building the SDK first.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // The CSP allows no inline script, so nothing is inlined, not even the module preload polyfill.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    manifest: true,
    sourcemap: false,
    // Vega's chunk (about 800 kB, 270 kB gzip) loads only with a page's first chart; the
    // first load has its own budget (scripts/dashboard-size.mjs).
    chunkSizeWarningLimit: 900,
  },
});
