import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, testEnv } from './stack.js';
import { DEADLINE_MS } from './wait.js';

/**
 * The real worker and API as child processes, run from the TypeScript sources
 * (through ts-register.mjs), so a test can SIGKILL one and start it again.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A file: URL, so `--import` takes it whatever characters the path holds. */
const REGISTER = new URL('./ts-register.mjs', import.meta.url).href;
const WORKER_MAIN = 'apps/worker/src/main.ts';
const API_MAIN = 'apps/api/src/main.ts';
/** Output kept per child: enough for a failed start-up, bounded for a long-lived child. */
const MAX_OUTPUT_CHARS = 1_000_000;
/** How much of a child's output a start-up error quotes: its last lines, where the cause is. */
const ERROR_TAIL_LINES = 80;
const ERROR_TAIL_CHARS = 16_000;
/** How long a start-up error waits for the rest of an exited child's output (its pipes close at once). */
const OUTPUT_DRAIN_MS = 2_000;

export interface ChildExit {
  /** Exit code, or null when the child was ended by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildService {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves once the service answers (worker: /health/ready, API: /health/live). */
  readonly ready: Promise<void>;
  /** Milliseconds from spawn to ready, once ready. */
  readonly readyMs: number | null;
  /** Resolves when the child has exited, however that happened. */
  readonly exited: Promise<ChildExit>;
  /** Worker: its health listener (http://127.0.0.1:WORKER_HEALTH_PORT); API: its base URL. */
  readonly url: string;
  readonly env: Record<string, string>;
  /** Everything the child wrote to stdout and stderr so far (the last MAX_OUTPUT_CHARS). */
  output(): string;
  /** Sends `signal` (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<ChildExit>;
}

/**
 * Environment of a child service: that of an in-process one (testEnv) with `overrides`, but
 * logging warnings and errors (LOG_LEVEL=warn unless overridden): a child's output is kept and
 * quoted when it fails to start, and a silent child would leave nothing to quote.
 */
export function childEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return testEnv({ LOG_LEVEL: 'warn', ...overrides });
}

export interface SpawnOptions {
  /** How long the child may take to become ready (default DEADLINE_MS, minutes). */
  readyTimeoutMs?: number;
}

/**
 * Starts `node apps/worker/src/main.ts` with `env` (typically childEnv(...)); a free
 * WORKER_HEALTH_PORT is added unless given. Ready when GET /health/ready answers 200
 * (PostgreSQL and Redis reachable) or the child logs "worker running".
 */
export async function spawnWorker(
  env: Record<string, string> = childEnv(),
  options: SpawnOptions = {},
): Promise<ChildService> {
  const healthPort = env.WORKER_HEALTH_PORT ?? String(await freePort());
  const url = `http://127.0.0.1:${healthPort}`;
  return spawnService(
    'worker',
    WORKER_MAIN,
    { ...env, WORKER_HEALTH_PORT: healthPort },
    url,
    `${url}/health/ready`,
    options,
  );
}

/**
 * Starts `node apps/api/src/main.ts` with `env` (typically childEnv(...)); a free PORT
 * (and the matching PUBLIC_URL) is added unless given. Ready when GET /health/live answers 200.
 */
export async function spawnApi(
  env: Record<string, string> = childEnv(),
  options: SpawnOptions = {},
): Promise<ChildService> {
  const port = env.PORT ?? String(await freePort());
  const url = `http://127.0.0.1:${port}`;
  return spawnService(
    'api',
    API_MAIN,
    { PUBLIC_URL: url, ...env, PORT: port },
    url,
    `${url}/health/live`,
    options,
  );
}

function spawnService(
  name: string,
  entry: string,
  settingsEnv: Record<string, string>,
  url: string,
  probeUrl: string,
  options: SpawnOptions,
): ChildService {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEADLINE_MS;
  const startedAt = performance.now();
  // Only what Node needs from the parent: the settings of the child are exactly `settingsEnv`.
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']
      .filter((key) => process.env[key] !== undefined)
      .map((key) => [key, process.env[key]!]),
  );
  const child = spawn(process.execPath, ['--enable-source-maps', '--import', REGISTER, entry], {
    cwd: ROOT,
    env: { ...inherited, ...settingsEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveChildren.add(child);

  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);

  let exit = null as ChildExit | null;
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      liveChildren.delete(child);
      resolve(exit);
    });
  });
  const spawnFailed = new Promise<never>((_, reject) => child.once('error', reject));
  spawnFailed.catch(() => undefined);
  // 'close' comes after 'exit' once stdout and stderr are read to the end: a start-up error
  // quotes the child's last words, not what happened to arrive before its exit was seen.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const outputRead = () => Promise.race([closed, sleep(OUTPUT_DRAIN_MS)]);

  let readyMs: number | null = null;
  const loggedReady = new Promise<void>((resolve) => {
    const onData = () => {
      if (/"msg":"worker running"|"msg":"API listening"/.test(output)) resolve();
    };
    child.stdout!.on('data', onData);
  });

  const ready = (async () => {
    const deadline = Date.now() + readyTimeoutMs;
    let answered = false;
    void loggedReady.then(() => (answered = true));
    while (!answered) {
      if (exit !== null) {
        await outputRead();
        throw new Error(
          `${name} exited (code ${exit.code}, signal ${exit.signal}) before it was ready; ${tailOf(output)}`,
        );
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await outputRead();
        throw new Error(
          `${name} was not ready within ${readyTimeoutMs} ms (no 200 from ${probeUrl}); ${tailOf(output)}`,
        );
      }
      answered = await answers(probeUrl);
      if (!answered) await Promise.race([sleep(50), exited, spawnFailed]);
    }
    readyMs = Math.round(performance.now() - startedAt);
  })();
  // A caller that never awaits `ready` must not get an unhandled rejection.
  ready.catch(() => undefined);

  return {
    process: child,
    pid: child.pid!,
    ready,
    get readyMs() {
      return readyMs;
    },
    exited,
    url,
    env: settingsEnv,
    output: () => output,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (exit === null) child.kill(signal);
      return exited;
    },
  };
}

/** The end of a child's stdout and stderr (interleaved as written), for an error message. */
function tailOf(output: string): string {
  if (output.trim() === '') return 'it wrote nothing to stdout or stderr';
  const lines = output.trimEnd().split('\n');
  let tail = lines.slice(-ERROR_TAIL_LINES).join('\n');
  if (tail.length > ERROR_TAIL_CHARS) tail = tail.slice(-ERROR_TAIL_CHARS);
  const heading = tail.length < output.trimEnd().length ? 'the end of its output' : 'its output';
  return `${heading} (stdout and stderr):\n${tail}`;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** Children still running when the test process exits are killed, not left behind. */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});
