import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the built `sas` as a user would: a subprocess of this Node, its own
 * HOME and config directory, no SAS_* variables but the ones a test gives.
 * Shared by test/cli*.e2e-spec.ts.
 */

export const CLI_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(CLI_ROOT, '..', '..');
export const SAS_BIN = join(CLI_ROOT, 'bin', 'sas.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Compiles packages/cli when dist/main.js is missing or older than a source
 * (the root build compiles the API and the SDK; the CLI is built here too),
 * and packages/sdk first when its dist/index.js is: `sas` loads the SDK's
 * dist/, so an SDK change the root build has not compiled yet would not run.
 */
export function ensureCliBuilt(): void {
  ensureBuilt(SDK_ROOT, 'index.js');
  ensureBuilt(CLI_ROOT, 'main.js');
}

const SDK_ROOT = join(REPO_ROOT, 'packages', 'sdk');

function ensureBuilt(root: string, entry: string): void {
  const built = safeMtime(join(root, 'dist', entry));
  const newest = Math.max(...sources(join(root, 'src')).map(safeMtime));
  if (built >= newest) return;
  execFileSync(
    process.execPath,
    [
      join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(root, 'tsconfig.json'),
    ],
    {
      stdio: 'inherit',
    },
  );
}

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** A HOME of its own, with XDG_CONFIG_HOME inside it. */
export function tempHome(): { home: string; configHome: string } {
  const home = mkdtempSync(join(tmpdir(), 'sas-cli-home-'));
  return { home, configHome: join(home, 'config') };
}

export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SAS_') && name !== 'FORCE_COLOR' && name !== 'XDG_CONFIG_HOME')
      env[name] = value;
  }
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), ...extra };
}

export function startCli(args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT): ChildProcess {
  return spawn(process.execPath, [SAS_BIN, ...args], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `sas …` to the end. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = REPO_ROOT,
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = startCli(args, env, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}
