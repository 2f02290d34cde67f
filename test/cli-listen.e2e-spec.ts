import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@sas/sdk';
import { cliEnv, ensureCliBuilt, runCli, startCli, tempHome } from '../packages/cli/e2e/harness.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * `sas webhooks listen --forward-to` and `sas events trigger`, as
 * subprocesses against the real stack: the triggered event reaches a local
 * receiver signed with the secret the listener printed (checked with the
 * SDK's verifyWebhook), the listener prints the receiver's answer, and
 * Ctrl-C ends it cleanly.
 */

interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

let stack: Stack;
let env: NodeJS.ProcessEnv;
let receiver: Server;
let hookUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  ensureCliBuilt();
  stack = await startStack();
  const org = await createOrganization(stack, await TestClient.for(stack), 'test');
  env = cliEnv(tempHome().home, { SAS_API_URL: stack.baseUrl, SAS_API_KEY: await org.apiKey() });
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ body, headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver?.close();
  await stack?.close();
});

describe('sas webhooks listen', () => {
  it('forwards a triggered event, signed with the printed secret, and stops on Ctrl-C', async () => {
    const listener = startCli(
      [
        'webhooks',
        'listen',
        '--forward-to',
        hookUrl,
        '--events',
        'session.completed,analysis.completed',
      ],
      env,
    );
    let stdout = '';
    let stderr = '';
    listener.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    listener.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => listener.on('close', resolve));
    try {
      const secret = await waitFor(async () => /signing secret is (whsec_\S+)/.exec(stdout)?.[1]);
      expect(stdout).toMatch(
        /^Ready! Listening to test events of org_\w+ \(session\.completed,analysis\.completed\), forwarding to http:\/\/127\.0\.0\.1:\d+\/hook\./,
      );

      // A type the listener did not ask for is not forwarded; the one it asked for is.
      expect((await runCli(['events', 'trigger', 'dowsing.query_completed'], env)).code).toBe(0);
      const trigger = await runCli(['events', 'trigger', 'session.completed', '--json'], env);
      expect(trigger.code).toBe(0);
      const triggered = JSON.parse(trigger.stdout);
      expect(triggered).toMatchObject({ type: 'session.completed', livemode: false });
      expect(triggered.id).toMatch(/^evt_/);

      const delivery = await waitFor(async () =>
        received.find((item) => item.body.includes(triggered.id)),
      );
      const event = (await verifyWebhook(secret, delivery.body, delivery.headers)) as any;
      expect(event).toMatchObject({ id: triggered.id, type: 'session.completed', livemode: false });
      expect(event.data.test).toBe(true);
      expect(delivery.headers['webhook-id']).toBe(triggered.id);
      expect(delivery.headers['content-type']).toBe('application/json');
      // Any other secret fails.
      await expect(
        verifyWebhook(
          'whsec_' + Buffer.alloc(32).toString('base64'),
          delivery.body,
          delivery.headers,
        ),
      ).rejects.toThrow();

      const line = await waitFor(async () =>
        stdout.split('\n').find((text) => text.includes(triggered.id)),
      );
      expect(line).toMatch(
        new RegExp(
          `session\\.completed \\[${triggered.id}\\] --> POST ${hookUrl.replace(/[.]/g, '\\.')} \\[204\\] \\d+ ms$`,
        ),
      );
      expect(received.filter((item) => item.body.includes('dowsing.query_completed'))).toEqual([]);
    } finally {
      listener.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('Stopped listening.');
  });

  it('--json prints the ready frame with the secret, then one line per forwarded event', async () => {
    const listener = startCli(['webhooks', 'listen', '--forward-to', hookUrl, '--json'], env);
    let stdout = '';
    listener.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => listener.on('close', resolve));
    try {
      const ready = await waitFor(async () =>
        stdout.includes('\n') ? JSON.parse(stdout.split('\n')[0]!) : null,
      );
      expect(ready).toMatchObject({
        type: 'listen.ready',
        mode: 'test',
        events: ['*'],
        forward_to: hookUrl,
      });
      expect(ready.secret).toMatch(/^whsec_/);
      const triggered = JSON.parse(
        (await runCli(['events', 'trigger', 'analysis.completed', '--json'], env)).stdout,
      );
      const forwarded = await waitFor(async () =>
        stdout
          .split('\n')
          .filter(Boolean)
          .map((text) => JSON.parse(text))
          .find((item) => item.event_id === triggered.id),
      );
      expect(forwarded).toMatchObject({ type: 'analysis.completed', status: 204, error: null });
    } finally {
      listener.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('a refused listen shows the service error with its request id', async () => {
    const refused = await runCli(['webhooks', 'listen', '--live'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/code:\s+VALIDATION_ERROR \(HTTP 400\)/);
    expect(refused.stderr).toMatch(/field:\s+mode/);
    expect(refused.stderr).toMatch(/request id: req_\w+/);
    const unknown = await runCli(['events', 'trigger', 'no.such_event'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/field:\s+type/);
  });
});
