import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './stack.js';
import { DEADLINE_MS, waitFor } from './wait.js';

/**
 * Debian's haproxy as a child process, with the repository's deploy/haproxy.cfg: the
 * same file docker-compose.yml mounts, given the real addresses through its
 * environment variables (API_1, API_2, HAPROXY_BIND, …).
 */

export const HAPROXY_CONFIG = fileURLToPath(new URL('../../deploy/haproxy.cfg', import.meta.url));
export const HAPROXY_BIN = process.env.HAPROXY_BIN ?? '/usr/sbin/haproxy';

export interface Haproxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** Everything haproxy wrote (errors, warnings, server state changes). */
  output(): string;
  close(): Promise<void>;
}

export interface HaproxyOptions {
  /** Base URLs of the API instances, e.g. http://127.0.0.1:41234 (two to four). */
  servers: string[];
  /** Port to listen on (default a free one). */
  port?: number;
  /** Interval of the /health/ready checks (default 250ms: the tests want quick state changes). */
  checkInterval?: string;
}

/** Starts haproxy and resolves once it answers on its port (whatever the API's state). */
export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const port = options.port ?? (await freePort());
  const servers: Record<string, string> = {};
  options.servers.forEach((server, i) => {
    servers[`API_${i + 1}`] = new URL(server).host;
    if (i >= 2) servers[`API_${i + 1}_STATE`] = 'enabled';
  });
  const child: ChildProcess = spawn(HAPROXY_BIN, ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HAPROXY_BIND: `127.0.0.1:${port}`,
      API_CHECK_INTERVAL: options.checkInterval ?? '250ms',
      HAPROXY_LOG_LEVEL: 'warning',
      // Few connections, so it starts whatever the machine's open-file limit.
      HAPROXY_MAXCONN: '512',
      ...servers,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-200_000);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  live.add(child);
  void exit.then(() => live.delete(child));

  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (exited) throw new Error(`haproxy exited at start:\n${output}`);
    try {
      await (
        await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(10_000) })
      ).arrayBuffer();
      return true;
    } catch {
      return null;
    }
  }, DEADLINE_MS).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`haproxy on ${url}: ${error.message}; its output:\n${output.slice(-16_000)}`);
  });
  return {
    url,
    port,
    output: () => output,
    async close() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
