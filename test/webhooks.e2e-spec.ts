import { DataSource } from 'typeorm';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newKey, toPublicId } from '#common';
import { Sql } from '#database';
import { verifyWebhook, WebhookVerificationError } from '@sas/sdk';
import { EventRetention } from '#webhooks';
import { createWorker } from '../apps/worker/src/worker.js';
import { operatorToken } from './support/authorization.js';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  createUntrustedLeafCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type ReceivedRequest,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, testSettings, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

const RETRY_SCALE = 0.001;
let ca: TestCertificateAuthority;
let stack: Stack;
let client: TestClient;
let receiver: HttpsReceiver;
let org: TestOrganization;
let token: string;

function webhookEnv(ca: TestCertificateAuthority, extra: Record<string, string> = {}) {
  return {
    WEBHOOK_EXTRA_CA_FILE: ca.caFile,
    WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_SCALE: String(RETRY_SCALE),
    WEBHOOK_ENDPOINT_CONCURRENCY: '2',
    ...extra,
  };
}

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  stack = await startStack({ env: webhookEnv(ca) });
  client = await TestClient.for(stack);
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});
beforeEach(async () => {
  receiver.reset();
  org = await createOrganization(stack, client);
  token = await org.token();
});

async function register(json: Record<string, unknown>, credential = token) {
  const created = await client.post('/v1/webhooks', { token: credential, json });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { webhook_id: string; secret: string } & Record<string, unknown>;
}

function bodiesOf(requests: ReceivedRequest[]) {
  return requests.map((request) => JSON.parse(request.rawBody) as Record<string, any>);
}

async function deliveriesOf(webhookId: string) {
  const list = await client.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`, { token });
  expect(list.status).toBe(200);
  return list.body.results as Record<string, any>[];
}

describe('webhook endpoints', () => {
  it('are created with a strong generated secret shown once, read, changed, replaced and deleted', async () => {
    const created = await register({ url: receiver.url, events: ['session.completed'] });
    expect(created).toMatchObject({
      webhook_id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
      url: receiver.url,
      events: ['session.completed'],
      active: true,
      status: 'enabled',
      envelope_format: 'standard',
      previous_secret_expires_at: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const path = `/v1/webhooks/${created.webhook_id}`;
    const read = await client.get(path, { token });
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body.created_at).toBe(created.created_at);

    const patched = await client.patch(`/v2/webhooks/${created.webhook_id}`, {
      token,
      json: { events: ['*'], active: false },
    });
    expect(patched.body).toMatchObject({ events: ['*'], active: false, status: 'disabled' });

    const replaced = await client.put(path, {
      token,
      json: { url: receiver.url, events: ['session.failed'] },
    });
    expect(replaced.body).toMatchObject({
      events: ['session.failed'],
      active: true,
      status: 'enabled',
    });

    const v1List = await client.get('/v1/webhooks', { token });
    expect(v1List.body.results.map((w: any) => w.webhook_id)).toEqual([created.webhook_id]);
    const v2List = await client.get('/v2/webhooks?per_page=1', { token });
    expect(v2List.body.pagination).toMatchObject({ total: 1, has_next: false });

    expect((await client.delete(path, { token })).status).toBe(204);
    expect((await client.get(path, { token })).status).toBe(404);
  });

  it.each([
    [
      { url: 'http://example.com/hook', events: ['*'] },
      'url',
      /^must use https:\/\/; .*sas webhooks listen --forward-to.*OUTBOUND_PRIVATE_ALLOWLIST$/,
    ],
    // What is behind a refused address is not said: a caller learns nothing of the network.
    [{ url: 'https://10.1.2.3/hook', events: ['*'] }, 'url', /^the destination is not allowed/],
    [
      { url: 'https://169.254.169.254/latest', events: ['*'] },
      'url',
      /^the destination is not allowed: only public addresses may be reached; to receive webhooks on your own machine, run `sas webhooks listen --forward-to http:\/\/localhost:4242\/hook` \(no endpoint needed\); a self-hosted service delivers to private hosts listed in OUTBOUND_PRIVATE_ALLOWLIST$/,
    ],
    [{ url: 'https://[::1]/hook', events: ['*'] }, 'url', /^the destination is not allowed/],
    [{ url: 'https://user:pw@example.com/', events: ['*'] }, 'url', /credentials/],
    [{ url: 'https://127.0.0.1/h', events: ['session.exploded'] }, 'events', /session.exploded/],
    [{ url: 'https://127.0.0.1/h', events: [] }, 'events', /at least one/],
    [{ url: 'https://127.0.0.1/h', events: ['*'], secret: 'short' }, 'secret', /24 to 256/],
    [
      { url: 'https://127.0.0.1/h', events: ['*'], envelope_format: 'xml' },
      'envelope_format',
      /standard, v1/,
    ],
  ])('refuse %j naming %s', async (json, field, issue) => {
    const refused = await client.post('/v1/webhooks', { token, json });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe(field);
    expect(refused.body.error.details.issue).toMatch(issue);
  });

  it('refuse a bad rotation, an unknown delivery, and a retry of a delivery still pending', async () => {
    const { webhook_id } = await register({ url: receiver.url, events: ['*'] });
    const rotation = await client.post(`/v1/webhooks/${webhook_id}/rotate-secret`, {
      token,
      json: { overlap_seconds: 10 ** 9 },
    });
    expect(rotation.status).toBe(400);
    expect(rotation.body.error.details.field).toBe('overlap_seconds');
    const unknown = await client.get(
      `/v1/webhooks/${webhook_id}/deliveries/dlv_01jh2x7v4ke8rbk3a8y0v0d7qz`,
      { token },
    );
    expect(unknown.status).toBe(404);

    receiver.respondWith({ status: 200, delayMs: 1500 });
    const sent = await client.post(`/v1/webhooks/${webhook_id}/test`, { token, json: {} });
    await receiver.waitForRequests(1);
    const pending = await client.post(
      `/v1/webhooks/${webhook_id}/deliveries/${sent.body.delivery_id}/retry`,
      { token },
    );
    expect(pending.status).toBe(409);
    expect(pending.body.error.details.field).toBe('delivery_id');
  });

  it('are invisible to other organisations and to the other mode', async () => {
    const created = await register({ url: receiver.url, events: ['*'] });
    const other = await createOrganization(stack, client);
    expect(
      (await client.get(`/v1/webhooks/${created.webhook_id}`, { token: await other.token() }))
        .status,
    ).toBe(404);
    const testKey = await org.apiKey(undefined, 'test');
    expect(
      (await client.get(`/v1/webhooks/${created.webhook_id}`, { apiKey: testKey })).status,
    ).toBe(404);
    expect((await client.get('/v1/webhooks', { apiKey: testKey })).body.total).toBe(0);
  });

  it('take subscriptions to the reserved payment events, which the catalogue marks reserved', async () => {
    const reserved = ['account.payment_succeeded', 'account.payment_failed'];
    const created = await register({ url: receiver.url, events: reserved });
    expect(created.events).toEqual(reserved);
    const document = (await (await fetch(`${stack.baseUrl}/docs-json`)).json()) as Record<
      string,
      any
    >;
    const schemaOf = (path: string) => {
      const ref: string =
        document.paths[path].post.requestBody.content['application/json'].schema.$ref;
      return document.components.schemas[ref.split('/').pop()!];
    };
    const descriptions = [
      schemaOf('/v1/webhooks').properties.events.description as string,
      schemaOf('/v2/webhooks').properties.events.description as string,
      document.components.schemas.EventDto.properties.type.description as string,
    ];
    for (const description of descriptions) {
      for (const type of reserved) {
        expect(description).toMatch(
          new RegExp(
            `Reserved: .*\`${type.replace('.', '\\.')}\`.* never sent, because the service has no billing`,
          ),
        );
      }
    }
  });
});

describe('delivery', () => {
  it('sends every session event, signed both ways, in the full envelope with the spec data', async () => {
    const { webhook_id, secret } = await register({ url: receiver.url, events: ['*'] });
    const session = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'webhook delivery check' },
    });
    const sessionId = session.body.session_id as string;
    const requests = await waitFor(async () => {
      const all = receiver.requests.filter(
        (r) => JSON.parse(r.rawBody).data.session_id === sessionId,
      );
      return all.some((r) => JSON.parse(r.rawBody).type === 'session.completed') ? all : null;
    });
    const standard = new StandardWebhook(secret);
    for (const request of requests) {
      expect(request.headers['content-type']).toBe('application/json');
      await expect(verifyWebhook(secret, request.rawBody, request.headers)).resolves.toBeDefined();
      expect(() =>
        standard.verify(request.rawBody, request.headers as Record<string, string>),
      ).not.toThrow();
      expect(request.headers['webhook-id']).toBe(JSON.parse(request.rawBody).id);
    }
    const bodies = bodiesOf(requests);
    const types = bodies.map((body) => body.type);
    expect(types).toContain('session.created');
    expect(types).toContain('session.started');
    expect(types).toContain('session.progress_updated');
    for (const body of bodies) {
      expect(Object.keys(body).sort()).toEqual(
        ['created_at', 'data', 'id', 'livemode', 'pending_webhooks', 'type'].sort(),
      );
      expect(body).toMatchObject({ id: expect.stringMatching(/^evt_/), livemode: true });
    }
    const sequences = bodies.map((body) => body.data.sequence as number);
    expect(new Set(sequences).size).toBe(sequences.length);
    const completed = bodies.find((body) => body.type === 'session.completed')!;
    expect(Object.keys(completed.data).sort()).toEqual(
      [
        'completed_at',
        'confidence_score',
        'duration_minutes',
        'results',
        'sequence',
        'session_id',
        'status',
        'target',
        'type',
      ].sort(),
    );
    expect(Object.keys(completed.data.results).sort()).toEqual([
      'coordinates',
      'descriptors',
      'sketches',
    ]);

    // A forged or altered body is recognised.
    const [first] = requests;
    await expect(
      verifyWebhook(secret, first!.rawBody.replace('session', 'xession'), first!.headers),
    ).rejects.toThrow(WebhookVerificationError);
    await expect(
      verifyWebhook(secret, first!.rawBody, first!.headers, {
        now: new Date(Date.now() + 10 * 60_000),
      }),
    ).rejects.toThrow(/tolerance/);

    // Each delivery succeeded once (recorded just after the receiver answered); the event log agrees.
    const deliveries = await waitFor(async () => {
      const all = await deliveriesOf(webhook_id);
      return all.length >= bodies.length && all.every((d) => d.state === 'succeeded') ? all : null;
    });
    expect(deliveries.every((d) => d.attempt_count === 1)).toBe(true);
    expect(deliveries[0]!.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    const events = await client.get('/v2/events?per_page=100', { token });
    expect(events.body.data.map((e: any) => e.id)).toEqual(
      expect.arrayContaining(bodies.map((body) => body.id)),
    );
    const event = await client.get(`/v2/events/${completed.id}`, { token });
    expect(event.body).toMatchObject({
      id: completed.id,
      type: 'session.completed',
      pending_webhooks: 0,
    });
  });

  it('retries on the scaled schedule, marks the webhook failed and tells the other endpoints', async () => {
    const watcher = await startHttpsReceiver({ certificate: ca.leaf });
    try {
      const failing = await register({ url: receiver.url, events: ['session.created'] });
      await register({ url: watcher.url, events: ['webhook.failed'] });
      receiver.respondWith({ status: 500, body: 'down for maintenance' });
      await client.post('/v1/sessions', {
        token,
        json: { type: 'remote_viewing', target: 'retries' },
      });
      const attempts = await receiver.waitForRequests(7);
      expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
      const gaps = attempts
        .slice(1)
        .map((r, i) => r.receivedAt.getTime() - attempts[i]!.receivedAt.getTime());
      [5, 30, 120, 600, 1800, 3600].forEach((seconds, i) =>
        expect(gaps[i]).toBeGreaterThanOrEqual(seconds * 1000 * RETRY_SCALE - 5),
      );
      const [notice] = await watcher.waitForRequests(1);
      const body = JSON.parse(notice!.rawBody);
      expect(body).toMatchObject({
        type: 'webhook.failed',
        data: {
          webhook_id: failing.webhook_id,
          event_type: 'session.created',
          attempts: 7,
          last_status_code: 500,
          sequence: 1,
        },
      });
      const webhook = await client.get(`/v1/webhooks/${failing.webhook_id}`, { token });
      expect(webhook.body).toMatchObject({ status: 'failed', active: true });
      const [delivery] = await deliveriesOf(failing.webhook_id);
      expect(delivery).toMatchObject({ state: 'failed', attempt_count: 7, last_status_code: 500 });
      expect(delivery!.attempts.map((a: any) => a.response_body)).toEqual(
        Array(7).fill('down for maintenance'),
      );

      // A manual retry makes one more attempt; a success brings the webhook back.
      receiver.respondWith({ status: 204 });
      const retried = await client.post(
        `/v1/webhooks/${failing.webhook_id}/deliveries/${delivery!.delivery_id}/retry`,
        { token },
      );
      expect(retried.status).toBe(202);
      await waitFor(async () => {
        const [again] = await deliveriesOf(failing.webhook_id);
        return again!.state === 'succeeded' ? again : null;
      });
      const recovered = await client.get(`/v1/webhooks/${failing.webhook_id}`, { token });
      expect(recovered.body.status).toBe('enabled');
      expect(
        (
          await client.post(
            `/v1/webhooks/${failing.webhook_id}/deliveries/${delivery!.delivery_id}/retry`,
            { token },
          )
        ).status,
      ).toBe(202);
    } finally {
      await watcher.close();
    }
  });

  it('disables the endpoint at once on 410 Gone, and honours Retry-After within the schedule', async () => {
    const gone = await register({ url: receiver.url, events: ['session.created'] });
    receiver.respondWith({ status: 410 });
    await client.post('/v1/sessions', { token, json: { type: 'remote_viewing', target: 'gone' } });
    await receiver.waitForRequests(1);
    const disabled = await waitFor(async () => {
      const read = await client.get(`/v1/webhooks/${gone.webhook_id}`, { token });
      return read.body.status === 'disabled' ? read.body : null;
    });
    expect(disabled).toMatchObject({
      active: false,
      status_reason: expect.stringContaining('410'),
    });
    await client.delete(`/v1/webhooks/${gone.webhook_id}`, { token });

    receiver.reset();
    await register({ url: receiver.url, events: ['session.created'] });
    receiver.respondWith((_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '400' } } : { status: 200 },
    );
    await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'slow down' },
    });
    const [first, second] = await receiver.waitForRequests(2);
    // Retry-After 400 s, scaled like every delay: the second attempt waits 0.4 s, not the schedule's 5 ms.
    expect(second!.receivedAt.getTime() - first!.receivedAt.getTime()).toBeGreaterThanOrEqual(
      400 - 5,
    );
  });

  it('sends test deliveries, in the v1 envelope when asked, and keeps them out of the event log', async () => {
    const { webhook_id, secret } = await register({
      url: receiver.url,
      events: ['session.failed'],
      envelope_format: 'v1',
    });
    const sent = await client.post(`/v1/webhooks/${webhook_id}/test`, {
      token,
      json: { event_type: 'analysis.completed', test_data: { confidence_score: 0.91 } },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({
      origin: 'test',
      state: 'pending',
      event_type: 'analysis.completed',
    });
    const [request] = await receiver.waitForRequests(1);
    await verifyWebhook(secret, request!.rawBody, request!.headers);
    const body = JSON.parse(request!.rawBody);
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'id', 'timestamp']);
    expect(body).toMatchObject({ event: 'analysis.completed', data: { confidence_score: 0.91 } });
    expect(body.data.results.risk_assessment).toHaveProperty('level');
    expect((await client.get(`/v2/events/${body.id}`, { token })).status).toBe(404);
    const refused = await client.post(`/v1/webhooks/${webhook_id}/test`, {
      token,
      json: { event_type: 'nope' },
    });
    expect(refused.body.error.details.field).toBe('event_type');
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const { webhook_id, secret: oldSecret } = await register({ url: receiver.url, events: ['*'] });
    const rotated = await client.post(`/v1/webhooks/${webhook_id}/rotate-secret`, {
      token,
      json: { overlap_seconds: 600 },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.previous_secret_expires_at).not.toBeNull();
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    await client.post(`/v1/webhooks/${webhook_id}/test`, { token, json: {} });
    const [request] = await receiver.waitForRequests(1);
    expect((request!.headers['x-service-signature'] as string).split(',')).toHaveLength(2);
    await expect(
      verifyWebhook(oldSecret, request!.rawBody, request!.headers),
    ).resolves.toBeDefined();
    await expect(
      verifyWebhook(newSecret, request!.rawBody, request!.headers),
    ).resolves.toBeDefined();
    expect(() =>
      new StandardWebhook(newSecret).verify(request!.rawBody, request!.headers as never),
    ).not.toThrow();
  });

  it('caps the deliveries in flight per endpoint', async () => {
    const { webhook_id } = await register({ url: receiver.url, events: ['*'] });
    // Slow enough that the eight overlap whatever the machine's speed.
    receiver.respondWith({ status: 200, delayMs: 400 });
    for (let i = 0; i < 8; i++) {
      await client.post(`/v1/webhooks/${webhook_id}/test`, { token, json: {} });
    }
    await receiver.waitForRequests(8);
    expect(receiver.maxInFlight).toBe(2);
  });

  it('records a receiver that does not answer within 5 s, and refuses an untrusted certificate', async () => {
    const untrusted = await startHttpsReceiver({
      certificate: await createUntrustedLeafCertificate(),
    });
    try {
      const slow = await register({ url: receiver.url, events: ['*'] });
      receiver.respondWith({ status: 200, delayMs: 6000 });
      const bad = await register({ url: untrusted.url, events: ['*'] });
      await client.post(`/v1/webhooks/${slow.webhook_id}/test`, { token, json: {} });
      await client.post(`/v1/webhooks/${bad.webhook_id}/test`, { token, json: {} });
      const attemptOf = (id: string) =>
        waitFor(async () => (await deliveriesOf(id))[0]?.attempts[0] ?? null);
      expect(await attemptOf(slow.webhook_id)).toMatchObject({
        status_code: null,
        error: 'no answer within 5 s',
      });
      expect(await attemptOf(bad.webhook_id)).toMatchObject({
        status_code: null,
        error: expect.stringMatching(/TLS|certificate/i),
      });
      expect(untrusted.requests).toHaveLength(0);
    } finally {
      await untrusted.close();
    }
  });

  it('checks the destination again at delivery time (DNS rebinding)', async () => {
    const { webhook_id } = await register({ url: receiver.url, events: ['*'] });
    // A worker whose allowlist no longer holds the receiver's address stands in for a name that now resolves privately.
    await stack.worker!.close();
    const strict = await createWorker(
      testSettings(0, webhookEnv(ca, { WEBHOOK_PRIVATE_ALLOWLIST: '' })),
    );
    try {
      await client.post(`/v1/webhooks/${webhook_id}/test`, { token, json: {} });
      const attempt = await waitFor(
        async () => (await deliveriesOf(webhook_id))[0]?.attempts[0] ?? null,
      );
      expect(attempt.error).toBe(
        'the destination is not allowed: only public addresses may be reached',
      );
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await strict.close();
      stack.worker = await createWorker(stack.settings);
    }
  });
});

describe('system notices', () => {
  it("reach an organisation's webhooks when the operator announces them, and only the operator may", async () => {
    await register({ url: receiver.url, events: ['system.maintenance_scheduled'] });
    const operator = await operatorToken(client);
    const announced = await client.post('/v2/system/notices', {
      token: operator,
      json: {
        type: 'system.maintenance_scheduled',
        title: 'Database upgrade',
        message: 'Writes pause for up to five minutes.',
        severity: 'warning',
        starts_at: '2026-12-01T02:00:00Z',
        ends_at: '2026-12-01T02:30:00Z',
        organization_id: toPublicId('organization', org.organizationId),
      },
    });
    expect(announced.status).toBe(202);
    expect(announced.body).toMatchObject({ organizations: 1, events: 2 });
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request!.rawBody)).toMatchObject({
      type: 'system.maintenance_scheduled',
      livemode: true,
      data: {
        notice_id: announced.body.notice_id,
        title: 'Database upgrade',
        severity: 'warning',
        starts_at: '2026-12-01T02:00:00.000Z',
        ends_at: '2026-12-01T02:30:00.000Z',
        sequence: 1,
      },
    });
    const refused = await client.post('/v2/system/notices', {
      token,
      json: { type: 'system.security_alert', title: 't', message: 'm' },
    });
    expect(refused.status).toBe(403);
    const backwards = await client.post('/v2/system/notices', {
      token: operator,
      json: {
        type: 'system.service_disruption',
        title: 't',
        message: 'm',
        starts_at: '2026-12-01T02:00:00Z',
        ends_at: '2026-12-01T01:00:00Z',
      },
    });
    expect(backwards.body.error.details.field).toBe('ends_at');
  });
});

describe('replay and retention', () => {
  it('replays a range in order without duplicating what was acknowledged unless asked', async () => {
    const start = new Date().toISOString();
    for (const target of ['one', 'two', 'three']) {
      await client.post('/v1/sessions', { token, json: { type: 'remote_viewing', target } });
    }
    const { webhook_id } = await register({ url: receiver.url, events: ['session.created'] });
    const query = `webhook_id=${webhook_id}&from=${encodeURIComponent(start)}`;
    const dry = await client.get(`/v2/webhooks/events/replay?${query}&dry_run=true`, { token });
    expect(dry.body).toMatchObject({ matched: 3, scheduled: 3, dry_run: true, replay_id: null });
    expect(receiver.requests).toHaveLength(0);

    const replay = await client.get(`/v2/webhooks/events/replay?${query}`, { token });
    expect(replay.body).toMatchObject({
      matched: 3,
      scheduled: 3,
      replay_id: expect.stringMatching(/^rpl_/),
    });
    const received = bodiesOf(await receiver.waitForRequests(3));
    expect(received.map((b) => b.data.target ?? b.data.session_id)).toHaveLength(3);
    const times = received.map((b) => b.created_at as string);
    expect([...times].sort()).toEqual(times);

    await waitFor(async () =>
      (await deliveriesOf(webhook_id)).every((d) => d.state === 'succeeded') ? true : null,
    );
    const again = await client.get(`/v2/webhooks/events/replay?${query}`, { token });
    expect(again.body).toMatchObject({ matched: 3, scheduled: 0, skipped_acknowledged: 3 });
    const forced = await client.get(`/v2/webhooks/events/replay?${query}&include_delivered=true`, {
      token,
    });
    expect(forced.body).toMatchObject({ scheduled: 3 });
    await receiver.waitForRequests(6);

    const since = await client.get(
      `/v2/webhooks/events/replay?webhook_id=${webhook_id}&since_event_id=${received[0]!.id}&dry_run=true&include_delivered=true`,
      { token },
    );
    expect(since.body.matched).toBe(2);
    const unknown = await client.get(
      `/v2/webhooks/events/replay?webhook_id=wh_01jh2x7v4ke8rbk3a8y0v0d7qz`,
      { token },
    );
    expect(unknown.status).toBe(404);
  });

  it('lists events page by page with an opaque cursor, filtered by type', async () => {
    for (const target of ['a', 'b', 'c']) {
      await client.post('/v1/sessions', { token, json: { type: 'remote_viewing', target } });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = await client.get(`/v2/events?type=session.created&per_page=2${query}`, {
        token,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((event: { id: string }) => event.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(3);
    expect(new Set(seen).size).toBe(3);
    const bad = await client.get('/v2/events?cursor=bm9wZQ', { token });
    expect(bad.body.error.details.field).toBe('cursor');
  });

  it('deletes events older than the retention period with their deliveries', async () => {
    const dataSource = stack.api.get(DataSource);
    const id = newKey('event').uuid;
    await dataSource.query(
      `INSERT INTO events (id, organization_id, mode, type, data, created_at, relayed_at)
       VALUES ($1, $2, 'live', 'session.created', '{}', now() - interval '31 days', now())`,
      [id, org.organizationId],
    );
    expect(await stack.worker!.get(EventRetention).sweep()).toBeGreaterThanOrEqual(1);
    expect(await dataSource.query('SELECT 1 FROM events WHERE id = $1', [id])).toHaveLength(0);
  });
});

describe('the audit log', () => {
  /** The audit events of the request that answered `response` (by its X-Request-Id). */
  function auditEventsOf(response: ApiResponse) {
    return stack.api
      .get(Sql)
      .rows<Record<string, any>>('SELECT * FROM audit_events WHERE request_id = $1', [
        response.headers.get('x-request-id'),
      ]);
  }

  /** The one audit event of the request, by the organisation's client, on `webhookId`. */
  async function auditOf(response: ApiResponse, webhookId: string) {
    expect(response.status, response.text).toBeLessThan(300);
    const rows = await auditEventsOf(response);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      organization_id: org.organizationId,
      mode: 'live',
      actor_type: 'client',
      actor_id: org.clientId,
      target_type: 'webhook',
      target_id: webhookId,
      request_id: response.headers.get('x-request-id'),
      ip: expect.any(String),
      user_agent: expect.any(String),
    });
    return rows[0]!;
  }

  it('records creation, changes (v2 PATCH, v1 PUT), secret rotation and deletion, never a secret', async () => {
    const created = await client.post('/v1/webhooks', {
      token,
      json: { url: receiver.url, events: ['session.completed'] },
    });
    const id = created.body.webhook_id as string;
    const secrets = [created.body.secret as string];
    expect(await auditOf(created, id)).toMatchObject({
      action: 'webhook.created',
      changes: {
        url: { before: null, after: receiver.url },
        events: { before: null, after: ['session.completed'] },
        active: { before: null, after: true },
        status: { before: null, after: 'enabled' },
        envelope_format: { before: null, after: 'standard' },
      },
    });

    const patched = await client.patch(`/v2/webhooks/${id}`, {
      token,
      json: { events: ['*'], active: false },
    });
    expect((await auditOf(patched, id)).changes).toEqual({
      events: { before: ['session.completed'], after: ['*'] },
      active: { before: true, after: false },
      status: { before: 'enabled', after: 'disabled' },
      status_reason: { before: null, after: 'deactivated through the API' },
    });

    // A secret of the caller's own, not shaped like one of ours: kept out by design, not by pattern.
    const ownSecret = 'my-own-signing-secret-0123456789';
    secrets.push(ownSecret);
    const replaced = await client.put(`/v1/webhooks/${id}`, {
      token,
      json: { url: receiver.url, events: ['*'], secret: ownSecret },
    });
    expect((await auditOf(replaced, id)).changes).toEqual({
      active: { before: false, after: true },
      status: { before: 'disabled', after: 'enabled' },
      status_reason: { before: 'deactivated through the API', after: null },
      secret: { before: '[redacted]', after: '[redacted]' },
    });

    const rotated = await client.post(`/v1/webhooks/${id}/rotate-secret`, {
      token,
      json: { overlap_seconds: 600 },
    });
    secrets.push(rotated.body.secret);
    expect(await auditOf(rotated, id)).toMatchObject({
      action: 'webhook.secret_rotated',
      changes: null,
      details: { overlap_seconds: 600 },
    });

    // Sending a test event changes nothing: no audit event.
    const tested = await client.post(`/v1/webhooks/${id}/test`, { token, json: {} });
    expect(tested.status).toBe(202);
    expect(await auditEventsOf(tested)).toEqual([]);

    const deleted = await client.delete(`/v2/webhooks/${id}`, { token });
    expect(await auditOf(deleted, id)).toMatchObject({ action: 'webhook.deleted' });

    const all = await stack.api
      .get(Sql)
      .rows('SELECT * FROM audit_events WHERE organization_id = $1 AND target_id = $2', [
        org.organizationId,
        id,
      ]);
    expect(all).toHaveLength(5);
    for (const secret of secrets) expect(JSON.stringify(all)).not.toContain(secret);
  });
});
