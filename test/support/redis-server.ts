import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './stack.js';
import { DEADLINE_MS } from './wait.js';

/**
 * A private `redis-server` (the system binary) on a free port, as a child process,
 * so a test can take Redis away (SIGKILL or SHUTDOWN NOSAVE) and bring it back on
 * the same port. No persistence: a restarted server is empty.
 */
export interface PrivateRedis {
  /** redis://127.0.0.1:PORT, or redis://:PASSWORD@127.0.0.1:PORT with a password */
  readonly url: string;
  readonly port: number;
  /** Whether the server process is currently running. */
  readonly running: boolean;
  /** Takes the server down: 'kill' (SIGKILL, default) or 'shutdown' (SHUTDOWN NOSAVE). */
  stop(how?: 'kill' | 'shutdown'): Promise<void>;
  /** Starts the server again on the same port; resolves when it answers PING. */
  start(): Promise<void>;
  /** Stops the server (if running) and removes its working directory. */
  close(): Promise<void>;
  /** What the server wrote to stdout/stderr (all runs). */
  output(): string;
}

export async function startPrivateRedis(
  options: { binary?: string; readyTimeoutMs?: number; password?: string } = {},
): Promise<PrivateRedis> {
  const binary = options.binary ?? 'redis-server';
  const password = options.password ?? null;
  const readyTimeoutMs = options.readyTimeoutMs ?? DEADLINE_MS;
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'private-redis-'));
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  async function start(): Promise<void> {
    if (child !== null) throw new Error(`private redis on port ${port} is already running`);
    const server = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
        '--dir',
        dir,
        '--logfile',
        '',
        ...(password === null ? [] : ['--requirepass', password]),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = server;
    liveServers.add(server);
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    let failure = null as Error | null;
    server.once('error', (error) => (failure = error));
    exited = new Promise((resolve) =>
      server.once('close', () => {
        liveServers.delete(server);
        if (child === server) child = null;
        resolve();
      }),
    );
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await ping(port, password))) {
      if (failure !== null || child !== server || Date.now() > deadline) {
        server.kill('SIGKILL');
        throw new Error(
          `redis-server on port ${port} did not start${failure ? ` (${String(failure)})` : ''}; its output:\n${output}`,
        );
      }
      await sleep(20);
    }
  }

  async function stop(how: 'kill' | 'shutdown' = 'kill'): Promise<void> {
    const server = child;
    if (server === null) return;
    if (how === 'shutdown') {
      await command(port, 'SHUTDOWN NOSAVE', password).catch(() => server.kill('SIGKILL'));
    } else {
      server.kill('SIGKILL');
    }
    await exited;
  }

  await start();
  return {
    url:
      password === null
        ? `redis://127.0.0.1:${port}`
        : `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    port,
    get running() {
      return child !== null;
    },
    stop,
    start,
    async close() {
      await stop('kill');
      await rm(dir, { recursive: true, force: true });
    },
    output: () => output,
  };
}

/** Whether a Redis server on 127.0.0.1:`port` answers PING (after AUTH, given a password). */
export async function ping(port: number, password: string | null = null): Promise<boolean> {
  return command(port, 'PING', password).then(
    (reply) => reply.startsWith('+PONG'),
    () => false,
  );
}

/**
 * Sends one inline command (after AUTH, given a password) and returns the
 * command's first reply line (or '' when the server closes).
 */
function command(
  port: number,
  line: string,
  password: string | null = null,
  timeoutMs = 1_000,
): Promise<string> {
  const skipped = password === null ? 0 : 1;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('redis command timed out')));
    socket.once('connect', () =>
      socket.write(`${password === null ? '' : `AUTH ${password}\r\n`}${line}\r\n`),
    );
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const lines = reply.split('\r\n');
      if (lines.length > skipped + 1) {
        socket.end();
        resolve(`${lines[skipped]}\r\n`);
      }
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(reply));
  });
}

/** Servers still running when the test process exits are killed, not left behind. */
const liveServers = new Set<ChildProcess>();
process.once('exit', () => {
  for (const server of liveServers) server.kill('SIGKILL');
});
