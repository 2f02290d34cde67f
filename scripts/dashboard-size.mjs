// Prints the gzip size of the dashboard's first-load JavaScript (the entry chunk and
// every chunk it imports statically, from Vite's manifest) and fails above the budget.
// DASHBOARD_DIR names a dashboard built elsewhere than dist/dashboard, as the API reads it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 300 * 1024;
const directory = process.env.DASHBOARD_DIR || join(process.cwd(), 'dist', 'dashboard');
const manifest = JSON.parse(readFileSync(join(directory, '.vite', 'manifest.json'), 'utf8'));

const firstLoad = new Set();
const visit = (key) => {
  const chunk = manifest[key];
  if (!chunk || firstLoad.has(chunk.file)) return;
  firstLoad.add(chunk.file);
  for (const imported of chunk.imports ?? []) visit(imported);
};
for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);

let total = 0;
for (const file of firstLoad) {
  if (!file.endsWith('.js')) continue;
  const size = gzipSync(readFileSync(join(directory, file)), { level: 9 }).length;
  total += size;
  console.log(`  ${file}: ${(size / 1024).toFixed(1)} KB gzip`);
}
const verdict = total <= BUDGET_BYTES ? 'within' : 'OVER';
console.log(
  `Dashboard first-load JavaScript: ${(total / 1024).toFixed(1)} KB gzip (${verdict} the ${BUDGET_BYTES / 1024} KB budget)`,
);
if (total > BUDGET_BYTES) process.exit(1);
