#!/usr/bin/env node
/**
 * `npm start`'s build: builds each part of the repository whose sources
 * changed since its last build, and nothing else, so a second `npm start`
 * starts at once instead of running four compilers and Vite again. A part is
 * built when any of its inputs is newer than its stamp (dist/.built/<part>),
 * or when its output is missing. `npm run build` still builds everything.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMPS = path.join(ROOT, 'dist', '.built');
const SHARED = ['package-lock.json', 'tsconfig.json'];

/** The parts, in build order (the dashboard is built against the SDK). */
export const PARTS = [
  {
    name: 'services',
    inputs: ['apps', 'libs', 'tsconfig.build.json', ...SHARED],
    skip: ['apps/dashboard'],
    output: 'dist/apps/api/src/main.js',
    command: ['npx', 'tsc', '-p', 'tsconfig.build.json'],
  },
  {
    name: 'sdk',
    inputs: [
      'packages/sdk/src',
      'packages/sdk/tsconfig.json',
      'packages/sdk/package.json',
      ...SHARED,
    ],
    output: 'packages/sdk/dist',
    command: ['npx', 'tsc', '-p', 'packages/sdk/tsconfig.json'],
  },
  {
    name: 'cli',
    inputs: ['packages/cli/src', 'packages/cli/tsconfig.json', 'packages/sdk/src', ...SHARED],
    output: 'packages/cli/dist',
    command: ['npx', 'tsc', '-p', 'packages/cli/tsconfig.json'],
  },
  {
    name: 'dashboard',
    inputs: ['apps/dashboard', 'packages/sdk/src', 'scripts/dashboard-size.mjs', ...SHARED],
    output: 'dist/dashboard/index.html',
    command: ['npm', 'run', 'build:dashboard'],
  },
];

/** The newest modification time (ms) of `entry` and everything under it; 0 when it is missing. */
export function newestTime(entry, skip = new Set()) {
  if (skip.has(entry) || !existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) {
    if (child === 'node_modules' || child === 'dist') continue;
    newest = Math.max(newest, newestTime(path.join(entry, child), skip));
  }
  return newest;
}

/** Whether `part` (paths relative to `root`) needs building: output missing, or an input newer than its stamp. */
export function isStale(part, root = ROOT, stamps = STAMPS) {
  const stamp = path.join(stamps, part.name);
  if (!existsSync(path.join(root, part.output)) || !existsSync(stamp)) return true;
  const skip = new Set((part.skip ?? []).map((entry) => path.join(root, entry)));
  const newest = Math.max(...part.inputs.map((input) => newestTime(path.join(root, input), skip)));
  return newest > statSync(stamp).mtimeMs;
}

function main() {
  mkdirSync(STAMPS, { recursive: true });
  const stale = PARTS.filter((part) => isStale(part));
  if (stale.length === 0) {
    process.stdout.write('[build] up to date\n');
    return;
  }
  for (const part of stale) {
    process.stdout.write(`[build] ${part.name} changed: ${part.command.join(' ')}\n`);
    // The stamp is the time the build started: a file saved during the build counts as newer.
    const started = new Date();
    execFileSync(part.command[0], part.command.slice(1), { cwd: ROOT, stdio: 'inherit' });
    const stamp = path.join(STAMPS, part.name);
    writeFileSync(stamp, '');
    utimesSync(stamp, started, started);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
