import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Scope, toPublicId } from '#common';
import { EventListenGateway } from '../apps/api/src/live/event-listen.gateway.js';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';
import { handshake, type Handshake } from './support/handshake.js';

/**
 * The server side of `sas webhooks listen` and `sas events trigger`: the
 * WebSocket /v2/events/listen streams every event of the credential's
 * organisation and mode as the relay publishes it, and POST /v2/events/trigger
 * writes a sample event through the outbox.
 */

const PATH = '/v2/events/listen';

interface Credentials {
  token?: string;
  apiKey?: string;
}

/** A `ws` client that keeps every frame it receives, in order. */
class Listener {
  readonly frames: any[] = [];
  readonly texts: string[] = [];

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.texts.push(String(data));
      this.frames.push(JSON.parse(String(data)));
    });
  }

  async next(predicate: (frame: any) => boolean): Promise<any> {
    return waitFor(async () => this.frames.find(predicate) ?? null);
  }

  events(): any[] {
    return this.frames.filter((frame) => typeof frame.id === 'string');
  }
}

let stack: Stack;
let client: TestClient;
const opened: Listener[] = [];

beforeAll(async () => {
  stack = await startStack({ env: { WEBHOOK_PRIVATE_ALLOWLIST: '127.0.0.1' } });
  client = await TestClient.for(stack);
});
afterAll(async () => {
  await stack?.close();
});
afterEach(async () => {
  for (const listener of opened.splice(0)) listener.socket.terminate();
  const gateway = stack.api.get(EventListenGateway);
  await waitFor(async () => (gateway.connectionCount === 0 ? true : null));
});

function urlOf(query: string): string {
  return `${stack.baseUrl.replace(/^http/, 'ws')}${PATH}${query}`;
}

function headersOf(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
  return headers;
}

async function listen(credentials: Credentials, query = ''): Promise<Listener> {
  const socket = new WebSocket(urlOf(query), { headers: headersOf(credentials) });
  const listener = new Listener(socket);
  opened.push(listener);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  await listener.next((frame) => frame.type === 'listen.ready');
  return listener;
}

/** The HTTP answer to an upgrade the server refuses. */
async function refusal(credentials: Credentials, query = ''): Promise<Handshake> {
  const answer = await handshake(urlOf(query), headersOf(credentials));
  if (answer.status === 101) throw new Error('the upgrade was accepted');
  return answer;
}

async function trigger(credentials: Credentials, type: string): Promise<string> {
  const response = await client.post('/v2/events/trigger', { ...credentials, json: { type } });
  expect(response.status, response.text).toBe(202);
  return response.body.id as string;
}

describe('listening to events over WebSocket', () => {
  let org: TestOrganization;
  let stranger: TestOrganization;

  beforeAll(async () => {
    org = await createOrganization(stack, client);
    stranger = await createOrganization(stack, client);
  });

  it('says what it streams, then sends triggered and real events as webhooks get them, filtered', async () => {
    const key = await org.apiKey(
      [Scope.OrganizationsRead, Scope.OrganizationsWrite, Scope.SessionsWrite, Scope.SessionsRead],
      'test',
    );
    const everything = await listen({ apiKey: key });
    const filtered = await listen({ apiKey: key }, '?events=session.created,webhook.failed');
    expect(everything.frames[0]).toEqual({
      type: 'listen.ready',
      organization_id: toPublicId('organization', org.organizationId),
      mode: 'test',
      livemode: false,
      events: ['*'],
      heartbeat_seconds: stack.settings.wsHeartbeatSeconds,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(filtered.frames[0]).toMatchObject({ events: ['session.created', 'webhook.failed'] });

    // A webhook subscribed to the triggered type gets a delivery of it too.
    const webhook = await client.post('/v2/webhooks', {
      apiKey: key,
      json: { url: 'https://127.0.0.1:9/hooks', events: ['analysis.failed'] },
    });
    expect(webhook.status, webhook.text).toBe(201);

    const triggered = await trigger({ apiKey: key }, 'analysis.failed');
    expect(triggered).toMatch(/^evt_[0-9a-z]{26}$/);
    const sample = await everything.next((frame) => frame.id === triggered);
    expect(sample).toEqual({
      id: triggered,
      type: 'analysis.failed',
      created_at: expect.any(String),
      data: expect.objectContaining({ test: true, analysis_id: expect.stringMatching(/^anal_/) }),
      livemode: false,
      pending_webhooks: 1,
    });
    // The frame is the standard envelope as the event log (and a webhook) has it.
    const logged = await client.get(`/v2/events/${triggered}`, { apiKey: key });
    expect(logged.body).toEqual({ ...sample, pending_webhooks: expect.any(Number) });
    const deliveries = await waitFor(async () => {
      const list = await client.get(`/v2/webhooks/${webhook.body.webhook_id}/deliveries`, {
        apiKey: key,
      });
      return list.body.data?.some((d: any) => d.event_id === triggered) ? list.body.data : null;
    });
    expect(deliveries.find((d: any) => d.event_id === triggered).event_type).toBe(
      'analysis.failed',
    );

    // A real event: a session created through the API.
    const created = await client.post('/v1/sessions', {
      apiKey: key,
      json: { type: 'remote_viewing', target: 'listen check' },
    });
    expect(created.status, created.text).toBe(201);
    const sessionId = created.body.session_id as string;
    const real = await everything.next(
      (frame) => frame.type === 'session.created' && frame.data.session_id === sessionId,
    );
    expect(real).toMatchObject({ livemode: false, data: { session_id: sessionId } });
    expect(real.data.test).toBeUndefined();
    await filtered.next(
      (frame) => frame.type === 'session.created' && frame.data.session_id === sessionId,
    );
    // A triggered type the filter names arrives; nothing else did.
    const sampleCreated = await trigger({ apiKey: key }, 'session.created');
    await filtered.next((frame) => frame.id === sampleCreated);
    await everything.next((frame) => frame.id === sampleCreated);
    expect(filtered.events().every((frame) => frame.type === 'session.created')).toBe(true);
    expect(filtered.events().some((frame) => frame.id === triggered)).toBe(false);
    // Events are frames of their own: never a control frame, never another tenant's.
    expect(everything.events().every((frame) => frame.livemode === false)).toBe(true);
  });

  it("never sends another organisation's or the other mode's events", async () => {
    const testKey = await org.apiKey([Scope.OrganizationsRead, Scope.OrganizationsWrite], 'test');
    const liveToken = await org.token([Scope.OrganizationsRead, Scope.OrganizationsWrite]);
    const strangerKey = await stranger.apiKey(
      [Scope.OrganizationsRead, Scope.OrganizationsWrite],
      'test',
    );
    const test = await listen({ apiKey: testKey });
    const live = await listen({ token: liveToken }, '?mode=live');
    expect(live.frames[0]).toMatchObject({ mode: 'live', livemode: true });
    const other = await listen({ apiKey: strangerKey });

    const inTest = await trigger({ apiKey: testKey }, 'report.completed');
    const inLive = await trigger({ token: liveToken }, 'report.failed');
    const elsewhere = await trigger({ apiKey: strangerKey }, 'report.completed');
    await test.next((frame) => frame.id === inTest);
    expect((await live.next((frame) => frame.id === inLive)).livemode).toBe(true);
    await other.next((frame) => frame.id === elsewhere);
    // Each was relayed before the last one arrived: the others would be here by now.
    const lastOf = async (listener: Listener, id: string) => listener.next((f) => f.id === id);
    await lastOf(test, inTest);
    expect(test.events().map((f) => f.id)).not.toContain(inLive);
    expect(test.events().map((f) => f.id)).not.toContain(elsewhere);
    expect(live.events().map((f) => f.id)).toEqual([inLive]);
    expect(other.events().map((f) => f.id)).toEqual([elsewhere]);
  });

  it('refuses a bad credential, scope, mode, filter or an analyst, over HTTP before upgrading', async () => {
    const key = await org.apiKey([Scope.OrganizationsRead], 'test');
    const noScope = await org.apiKey([Scope.SessionsRead], 'test');
    const liveToken = await org.token([Scope.OrganizationsRead]);

    const unauthenticated = await refusal({});
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(unauthenticated.headers['x-request-id']).toMatch(/^req_/);
    expect((await refusal({ apiKey: 'sk_test_nope' })).status).toBe(401);

    const forbidden = await refusal({ apiKey: noScope });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.details.required_scopes).toEqual([Scope.OrganizationsRead]);

    // Test mode by default: a live credential must ask for live events in so many words.
    const liveByDefault = await refusal({ token: liveToken });
    expect(liveByDefault.status).toBe(400);
    expect(liveByDefault.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'mode', suggested_value: 'live' },
      help_url: expect.stringContaining('/docs/errors#validation_error'),
    });
    const testWithLive = await refusal({ apiKey: key }, '?mode=live');
    expect(testWithLive.body.error.details).toMatchObject({ field: 'mode' });
    expect((await refusal({ apiKey: key }, '?mode=sandbox')).body.error.details.field).toBe('mode');
    const badFilter = await refusal({ apiKey: key }, '?events=session.created,session.exploded');
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.details.field).toBe('events');
    expect(badFilter.body.error.message).toContain('session.exploded');

    // People: an admin listens, an analyst (who works blind) is refused.
    const scopes = [Scope.OrganizationsRead, Scope.Profile];
    const codeClient = await memberClient(client, org, scopes);
    const analyst = await addMember(stack, org, ['analyst']);
    const admin = await addMember(stack, org, ['admin']);
    const analystToken = await memberToken(stack, codeClient, analyst);
    const blind = await refusal({ token: analystToken }, '?mode=live');
    expect(blind.status).toBe(403);
    expect(blind.body.error.message).toMatch(/Analysts and judges cannot listen/);
    const adminToken = await memberToken(stack, codeClient, admin);
    const adminListener = await listen({ token: adminToken }, '?mode=live');
    expect(adminListener.frames[0]).toMatchObject({ type: 'listen.ready', mode: 'live' });
  });

  it('answers a message with listen.error and stays open', async () => {
    const listener = await listen({ apiKey: await org.apiKey([Scope.OrganizationsRead], 'test') });
    listener.socket.send('{"type":"subscribe"}');
    expect(await listener.next((frame) => frame.type === 'listen.error')).toEqual({
      type: 'listen.error',
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('takes no messages') },
    });
    expect(listener.socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe('POST /v2/events/trigger', () => {
  it('needs organizations:write and names type when it is missing or unknown', async () => {
    const org = await createOrganization(stack, client);
    const reader = await org.apiKey([Scope.OrganizationsRead], 'test');
    const writer = await org.apiKey([Scope.OrganizationsWrite], 'test');
    const denied = await client.post('/v2/events/trigger', {
      apiKey: reader,
      json: { type: 'session.completed' },
    });
    expect(denied.status).toBe(403);
    for (const json of [{}, { type: 'session.exploded' }, { type: 7 }]) {
      const invalid = await client.post('/v2/events/trigger', { apiKey: writer, json });
      expect(invalid.status, JSON.stringify(json)).toBe(400);
      expect(invalid.body.error.details.field).toBe('type');
    }
    const accepted = await client.post('/v2/events/trigger', {
      apiKey: writer,
      json: { type: 'session.created' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'session.created',
      livemode: false,
    });
  });
});
