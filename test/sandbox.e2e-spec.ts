import { request as httpRequest } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { Client, PermissionError, type Session } from '@sas/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '#common';
import { createApiApp } from '../apps/api/src/app.js';
import { cliEnv, ensureCliBuilt, runCli, tempHome } from '../packages/cli/e2e/harness.js';
import { TestClient } from './support/client.js';
import { Contract } from './support/contract.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { handshake } from './support/handshake.js';
import { freePort, startStack, testSettings, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * The sandbox base URL (spec: "A test environment exists at
 * {sandbox_base_url}"): the whole API under {PUBLIC_URL}/sandbox, or on a
 * hostname of its own, for test-mode credentials only, with the links its
 * answers carry pointing back at it.
 */

let stack: Stack;
let live: TestClient;
let sandbox: TestClient;
let org: TestOrganization;
let liveOrg: TestOrganization;
let testKey: string;
let liveKey: string;

beforeAll(async () => {
  stack = await startStack();
  live = await TestClient.for(stack);
  sandbox = new TestClient(`${stack.baseUrl}/sandbox`, await Contract.load(stack.baseUrl));
  // Its OAuth client is a test-mode one.
  org = await createOrganization(stack, live, 'test');
  liveOrg = await createOrganization(stack, live, 'live');
  testKey = await org.apiKey(ALL_SCOPES, 'test');
  liveKey = await liveOrg.apiKey(ALL_SCOPES, 'live');
});
afterAll(async () => {
  await stack?.close();
});

describe('the sandbox under {PUBLIC_URL}/sandbox', () => {
  it('serves v1 and v2 to a test-mode credential, the same data as at the live base', async () => {
    const created = await sandbox.post('/v1/sessions', {
      apiKey: testKey,
      json: { type: 'remote_viewing', target: 'Sandbox envelope', modality: 'visual' },
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;
    const fromV2 = await sandbox.get(`/v2/sessions/${id}`, { apiKey: testKey });
    expect(fromV2.status).toBe(200);
    expect(fromV2.body.session_id).toBe(id);
    // Test credentials keep working at the live base: one deployment, one test mode.
    const fromLiveBase = await live.get(`/v2/sessions/${id}`, { apiKey: testKey });
    expect(fromLiveBase.status).toBe(200);
    expect(fromLiveBase.body.session_id).toBe(id);
  });

  it('refuses a live-mode credential with 403 naming the live base URL, key and token alike', async () => {
    for (const credential of [{ apiKey: liveKey }, { token: await liveOrg.token() }]) {
      for (const path of ['/v1/sessions', '/v2/sessions']) {
        const refused = await sandbox.get(path, credential);
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
        expect(refused.body.error.message).toContain(`${stack.baseUrl}/v1`);
        expect(refused.body.error.details.field).toBe('Authorization');
      }
    }
    // The same credentials at the live base are served as before.
    expect((await live.get('/v2/sessions', { apiKey: liveKey })).status).toBe(200);
  });

  it('links its answers to the base they were asked on: help_url and sketches', async () => {
    const invalid = await sandbox.post('/v2/sessions/create', { apiKey: testKey, json: {} });
    expect(invalid.status).toBe(400);
    const helpUrl = invalid.body.error.help_url as string;
    expect(helpUrl.startsWith(`${stack.baseUrl}/sandbox/docs/errors#`)).toBe(true);
    const help = await fetch(helpUrl);
    expect(help.status).toBe(200);
    expect(help.headers.get('content-type')).toContain('text/html');
    // The same mistake at the live base links to the live help page.
    const atLive = await live.post('/v2/sessions/create', { apiKey: testKey, json: {} });
    expect(atLive.body.error.help_url.startsWith(`${stack.baseUrl}/docs/errors#`)).toBe(true);

    const created = await sandbox.post('/v1/sessions', {
      apiKey: testKey,
      json: { type: 'remote_viewing', target: 'Sketched envelope', modality: 'visual' },
    });
    const id = created.body.session_id as string;
    const results = await waitFor(async () => {
      const read = await sandbox.get(`/v1/sessions/${id}/results`, { apiKey: testKey });
      return read.status === 200 && read.body.status === 'completed' ? read.body : null;
    });
    const sketches = results.results.sketches as { url: string }[];
    expect(sketches.length).toBeGreaterThan(0);
    for (const sketch of sketches) {
      expect(sketch.url.startsWith(`${stack.baseUrl}/sandbox/v1/sessions/${id}/sketches/`)).toBe(
        true,
      );
    }
    const image = await fetch(sketches[0]!.url, { headers: { 'x-api-key': testKey } });
    expect(image.status).toBe(200);
    const v2 = await live.get(`/v2/sessions/${id}`, { apiKey: testKey });
    expect(v2.body.results.sketches[0].url.startsWith(`${stack.baseUrl}/v1/sessions/`)).toBe(true);
  });

  it('takes live-update WebSockets from test-mode credentials only', async () => {
    const url = `${stack.baseUrl.replace(/^http/, 'ws')}/sandbox/v1/sessions/ws`;
    expect((await handshake(url, { 'x-api-key': testKey })).status).toBe(101);
    const refused = await handshake(url, { 'x-api-key': liveKey });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain(`${stack.baseUrl}/v1`);
  });

  it('is listed beside the live server in the OpenAPI document', async () => {
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as {
      servers: { url: string; description: string }[];
    };
    expect(document.servers.map((server) => server.url)).toEqual([
      stack.baseUrl,
      `${stack.baseUrl}/sandbox`,
    ]);
    expect(document.servers[1]!.description).toMatch(/test-mode credentials only/);
  });

  it('is a base URL like any other to the SDK, waiting over its WebSocket, and refuses live keys', async () => {
    const client = new Client({ baseUrl: `${stack.baseUrl}/sandbox`, apiKey: testKey });
    const created = await client.sessions.create({
      type: 'remote_viewing',
      target: 'SDK sandbox envelope',
      modality: 'visual',
    });
    const done = (await client.waitFor(created)) as Session;
    expect(done.status).toBe('completed');
    // Client credentials too: the token endpoint is under the sandbox base like everything else.
    const fromClient = new Client({
      baseUrl: `${stack.baseUrl}/sandbox`,
      clientId: org.clientId,
      clientSecret: org.clientSecret,
    });
    expect((await fromClient.sessions.get(created.session_id)).session_id).toBe(created.session_id);
    const liveClient = new Client({ baseUrl: `${stack.baseUrl}/sandbox`, apiKey: liveKey });
    await expect(liveClient.sessions.get(created.session_id)).rejects.toBeInstanceOf(
      PermissionError,
    );
  });

  it('is a base URL like any other to the CLI', async () => {
    ensureCliBuilt();
    const env = cliEnv(tempHome().home);
    const login = await runCli(
      ['login', '--api-key', testKey, '--api-url', `${stack.baseUrl}/sandbox`],
      env,
    );
    expect(login.code).toBe(0);
    const created = await runCli(
      ['sessions', 'create', '--target', 'CLI sandbox envelope', '--wait', '--json'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(JSON.parse(created.stdout).status).toBe('completed');
  });
});

describe('the sandbox on a hostname of its own (SANDBOX_PUBLIC_URL)', () => {
  let api: INestApplication;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    // Both names reach this one process: 127.0.0.1 is live, localhost the sandbox.
    const settings = testSettings(port, {
      SANDBOX_PUBLIC_URL: `http://localhost:${port}`,
      TRUSTED_PROXIES: '127.0.0.1',
    });
    api = await createApiApp(settings);
    await api.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await api?.close();
  });

  /** GET /v2/sessions with this Host, from this local address (127.0.0.1 is the trusted proxy). */
  const get = (
    host: string,
    apiKey: string,
    options: { forwardedHost?: string; from?: string } = {},
  ): Promise<{ status: number; body: any }> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v2/sessions',
          localAddress: options.from ?? '127.0.0.1',
          headers: {
            host,
            'x-api-key': apiKey,
            ...(options.forwardedHost ? { 'x-forwarded-host': options.forwardedHost } : {}),
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () =>
            resolve({ status: response.statusCode!, body: JSON.parse(text) }),
          );
        },
      );
      request.once('error', reject);
      request.end();
    });

  it('tells the sandbox by the request host, and links to that host', async () => {
    const sandboxHost = `localhost:${port}`;
    expect((await get(sandboxHost, testKey)).status).toBe(200);
    const refused = await get(sandboxHost, liveKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain(`http://127.0.0.1:${port}/v1`);
    expect(refused.body.error.help_url.startsWith(`http://localhost:${port}/docs/errors#`)).toBe(
      true,
    );
    // The live hostname serves live credentials, and test ones as ever.
    expect((await get(`127.0.0.1:${port}`, liveKey)).status).toBe(200);
    expect((await get(`127.0.0.1:${port}`, testKey)).status).toBe(200);
  });

  it('believes X-Forwarded-Host only from a trusted proxy', async () => {
    const forwarded = { forwardedHost: `localhost:${port}` };
    expect((await get(`127.0.0.1:${port}`, liveKey, forwarded)).status).toBe(403);
    // 127.0.0.2 is not in TRUSTED_PROXIES: its X-Forwarded-Host is ignored, the Host header decides.
    const untrusted = await get(`127.0.0.1:${port}`, liveKey, { ...forwarded, from: '127.0.0.2' });
    expect(untrusted.status).toBe(200);
  });
});
