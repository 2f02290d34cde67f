import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startPrivateRedis, type PrivateRedis } from './support/redis-server.js';
import { testDatabaseUrl } from './support/scope.js';
import { freePort, startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Redis has a password (issue 37): a Redis that anyone on the host can talk to
 * is one request away from a forged sign-in. The service takes one in
 * REDIS_URL, and `npm start` gives its own redis-server one.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** What a client with `url` is answered to PING: PONG, or the server's refusal. */
async function pingAs(url: string): Promise<string> {
  // No ready check (INFO): it would be refused first, and close the connection.
  const redis = new Redis(url, {
    lazyConnect: true,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.ping();
  } catch (error) {
    return (error as Error).message;
  } finally {
    redis.disconnect();
  }
}

describe('REDIS_URL with a password', () => {
  let redis: PrivateRedis;
  let stack: Stack;

  it('is what the API and worker use, and nothing reaches Redis without it', async () => {
    redis = await startPrivateRedis({ password: 'a-long-redis-password-0123456789' });
    cleanups.push(() => redis.close());
    expect(await pingAs(`redis://127.0.0.1:${redis.port}`)).toMatch(/NOAUTH/);
    expect(await pingAs(redis.url)).toBe('PONG');

    stack = await startStack({ env: { REDIS_URL: redis.url } });
    cleanups.push(() => stack.close());
    const client = await TestClient.for(stack);
    const ready = await client.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.redis).toEqual({ status: 'up' });
    // Counted (rate limits) and queued (the worker runs it) through the password-protected Redis.
    const token = await (await createOrganization(stack, client)).token();
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'behind a password' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-ratelimit-limit')).not.toBeNull();
    await waitFor(async () => {
      const read = await client.get(`/v1/sessions/${created.body.session_id}`, { token });
      return read.body.status === 'completed' ? true : null;
    });
  });
});

describe('npm start’s own redis-server', () => {
  let child: ChildProcess;

  it('gets a password made once, kept under its data directory, and REDIS_URL carries it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'start-data-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      START_ONLY_INFRA: '1',
      START_DATA_DIR: dataDir,
      EMBEDDED_REDIS_PORT: String(port),
      DATABASE_URL: testDatabaseUrl(),
    };
    delete env.REDIS_URL;
    delete env.REDIS_CLUSTER_NODES;
    child = spawn(process.execPath, ['scripts/start.mjs'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanups.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const url = await waitFor(async () => /^REDIS_URL=(.+)$/m.exec(output)?.[1] ?? null).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}; start.mjs said:\n${output}`);
      },
    );

    const kept = (await readFile(join(dataDir, 'redis-password'), 'utf8')).trim();
    expect(kept).toMatch(/^[0-9a-f]{48}$/);
    expect((await stat(join(dataDir, 'redis-password'))).mode & 0o777).toBe(0o600);
    expect(url).toBe(`redis://:${kept}@127.0.0.1:${port}`);
    // Never on the process list, and never in what it says.
    expect(output.replace(/^REDIS_URL=.*$/m, '')).not.toContain(kept);

    expect(await pingAs(`redis://127.0.0.1:${port}`)).toMatch(/NOAUTH/);
    expect(await pingAs(url)).toBe('PONG');

    child.kill('SIGTERM');
    await exited;
    expect(await pingAs(url)).not.toBe('PONG');
  });
});
