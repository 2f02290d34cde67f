import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { newId, Scope } from '#common';
import { SessionUpdatesGateway } from '../apps/api/src/live/session-updates.gateway.js';
import { createWorker } from '../apps/worker/src/worker.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

const PATH = '/v1/sessions/ws';
interface Credentials {
  token?: string;
  apiKey?: string;
}

/** A `ws` client that keeps every message it receives, in order. */
class LiveClient {
  readonly messages: any[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private cursor = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.messages.push(JSON.parse(String(data))));
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message after the last one returned that matches. */
  async next(predicate: (message: any) => boolean = () => true): Promise<any> {
    return waitFor(async () => {
      const index = this.messages.findIndex((m, i) => i >= this.cursor && predicate(m));
      if (index === -1) return null;
      this.cursor = index + 1;
      return this.messages[index];
    });
  }

  /** Sends a command and returns the reply to it (`subscribed`, `unsubscribed` or `error`). */
  async request(message: unknown): Promise<any> {
    this.send(message);
    return this.next((m) => ['subscribed', 'unsubscribed', 'error'].includes(m.type));
  }
}

let a: Stack;
let client: TestClient;
/** Started on demand, so a test can have an analysis wait in its queue while it subscribes. */
let worker: INestApplicationContext | null = null;
const opened: LiveClient[] = [];

// Steps of 300 ms: a quick scan's three steps are each seen on their own.
beforeAll(async () => {
  a = await startStack({ worker: false, env: { SIMULATED_STEP_MS: '300' } });
  client = await TestClient.for(a);
});
afterAll(async () => {
  await worker?.close();
  await a?.close();
});

// Every socket a test opened is closed, and the instance must forget it.
afterEach(async () => {
  for (const live of opened.splice(0)) live.socket.terminate();
  const gateway = a.api.get(SessionUpdatesGateway);
  await waitFor(async () =>
    gateway.connectionCount === 0 && gateway.subscriptionCount === 0 ? true : null,
  );
});

async function startWorker(): Promise<void> {
  worker ??= await createWorker(a.settings);
}

async function stopWorker(): Promise<void> {
  await worker?.close();
  worker = null;
}

async function connect(credentials: Credentials): Promise<LiveClient> {
  const headers: Record<string, string> = {};
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
  const socket = new WebSocket(`${a.baseUrl.replace(/^http/, 'ws')}${PATH}`, { headers });
  const live = new LiveClient(socket);
  opened.push(live);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return live;
}

async function submitAnalysis(credentials: Credentials, description = 'Live updates test') {
  const submitted = await client.post('/v1/analysis/targets', {
    ...credentials,
    json: {
      target_type: 'location',
      analysis_type: 'quick_scan',
      reference_material: { coordinates: { latitude: 52.52, longitude: 13.405 } },
      description,
    },
  });
  expect(submitted.status).toBe(201);
  return submitted.body.analysis_id as string;
}

async function createSession(credentials: Credentials, target: string) {
  const created = await client.post('/v1/sessions', {
    ...credentials,
    json: { type: 'remote_viewing', target },
  });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

const isAnalysisUpdate = (message: any) => message.type.startsWith('analysis.');
const isSessionUpdate = (message: any) => message.type.startsWith('session.');

describe('live analysis updates over WebSocket', () => {
  it('sends the snapshot, the start, each step and the results of an analysis', async () => {
    // No worker yet: the analysis waits in its queue while the client subscribes.
    await stopWorker();
    const org = await createOrganization(a, client);
    const token = await org.token([Scope.SessionsRead, Scope.SessionsWrite]);
    const id = await submitAnalysis({ token });
    const live = await connect({ token });

    const snapshot = await live.request({ type: 'subscribe', analysis_id: id });
    expect(snapshot).toEqual({
      type: 'subscribed',
      analysis_id: id,
      status: 'queued',
      progress: 0,
      current_step: 'queued',
      sequence: 1,
    });
    await startWorker();

    const completed = await live.next((m) => m.type === 'analysis.completed');
    expect(completed).toEqual({
      type: 'analysis.completed',
      analysis_id: id,
      confidence_score: expect.any(Number),
      results: {
        summary: expect.any(String),
        key_findings: expect.any(Array),
        risk_assessment: { level: expect.any(String), factors: expect.any(Array) },
      },
      processing_time: expect.any(String),
      completed_at: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
    });

    const updates = live.messages.filter(isAnalysisUpdate);
    expect(updates[0]).toEqual({
      type: 'analysis.started',
      analysis_id: id,
      started_at: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_/),
    });
    const progress = updates.filter((m) => m.type === 'analysis.progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const step of progress) {
      expect(step).toEqual({
        type: 'analysis.progress',
        analysis_id: id,
        progress: expect.any(Number),
        current_step: expect.any(String),
        sequence: expect.any(Number),
        event_id: expect.stringMatching(/^evt_/),
      });
    }
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
      expect(progress[i].current_step).not.toBe(progress[i - 1].current_step);
    }
    // One message per event, in the order of the analysis's sequence, all after the snapshot.
    expect(updates.map((m) => m.type)).toEqual([
      'analysis.started',
      ...progress.map(() => 'analysis.progress'),
      'analysis.completed',
    ]);
    updates.forEach((m, i) => {
      expect(m.sequence).toBeGreaterThan(i === 0 ? snapshot.sequence : updates[i - 1].sequence);
    });
    expect(live.messages.indexOf(completed)).toBe(live.messages.length - 1);

    const read = await client.get(`/v1/analysis/${id}/results`, { token });
    expect(read.body.results.confidence_score).toBe(completed.confidence_score);
    expect(read.body.processing_time).toBe(completed.processing_time);
    // Subscribing again now shows where it ended.
    expect(await live.request({ type: 'subscribe', analysis_id: id })).toEqual({
      type: 'subscribed',
      analysis_id: id,
      status: 'completed',
      progress: 100,
      current_step: 'completed',
      sequence: completed.sequence,
    });
    expect(await live.request({ type: 'unsubscribe', analysis_id: id })).toEqual({
      type: 'unsubscribed',
      analysis_id: id,
    });
  });

  it('sends a * subscriber the analyses of its own organisation and mode only, and nothing to session subscribers', async () => {
    await startWorker();
    const org = await createOrganization(a, client);
    const stranger = await createOrganization(a, client);
    const credentials: Record<'own' | 'sandbox' | 'other', Credentials> = {
      own: { token: await org.token() },
      sandbox: { apiKey: await org.apiKey([Scope.SessionsRead, Scope.SessionsWrite], 'test') },
      other: { token: await stranger.token() },
    };
    const names = ['own', 'sandbox', 'other'] as const;
    const clients = await Promise.all(names.map((name) => connect(credentials[name])));
    for (const live of clients) {
      expect(await live.request({ type: 'subscribe', analysis_id: '*' })).toEqual({
        type: 'subscribed',
        analysis_id: '*',
      });
    }
    // Existing clients' `session_id: "*"` keeps meaning sessions only.
    const sessionsOnly = await connect(credentials.own);
    expect(await sessionsOnly.request({ type: 'subscribe', session_id: '*' })).toEqual({
      type: 'subscribed',
      session_id: '*',
    });

    const analyses: string[] = [];
    for (const name of names) analyses.push(await submitAnalysis(credentials[name]));
    const session = await createSession(credentials.own, 'live updates beside analyses');
    await Promise.all([
      ...clients.map((live, i) =>
        live.next((m) => m.type === 'analysis.completed' && m.analysis_id === analyses[i]),
      ),
      sessionsOnly.next((m) => m.type === 'session.completed' && m.session_id === session),
    ]);
    // The instance has now handled every event of the three analyses and the session; a
    // reply on the same socket comes after anything it sent there before, leaked or not.
    for (const live of clients) await live.request({ type: 'subscribe', analysis_id: '*' });
    await sessionsOnly.request({ type: 'subscribe', session_id: '*' });

    clients.forEach((live, i) => {
      expect(new Set(live.messages.filter(isAnalysisUpdate).map((m) => m.analysis_id))).toEqual(
        new Set([analyses[i]]),
      );
      expect(live.messages.filter(isSessionUpdate)).toEqual([]);
    });
    expect(sessionsOnly.messages.filter(isAnalysisUpdate)).toEqual([]);
    expect(sessionsOnly.messages.some((m) => 'analysis_id' in m)).toBe(false);
  });

  it('reports a failed analysis as analysis.error', async () => {
    await startWorker();
    const org = await createOrganization(a, client);
    const token = await org.token();
    const live = await connect({ token });
    await live.request({ type: 'subscribe', analysis_id: '*' });
    const id = await submitAnalysis({ token }, 'Live updates test [fail]');

    expect(await live.next((m) => m.type === 'analysis.error')).toEqual({
      type: 'analysis.error',
      analysis_id: id,
      error: { code: 'engine_failure', message: expect.any(String) },
      failed_at: expect.any(String),
      sequence: expect.any(Number),
      event_id: expect.stringMatching(/^evt_/),
    });
    expect(live.messages.some((m) => m.type === 'analysis.completed')).toBe(false);
  });

  it('answers unknown, foreign and malformed analysis subscriptions with an error and keeps the connection', async () => {
    const org = await createOrganization(a, client);
    const stranger = await createOrganization(a, client);
    const foreign = await submitAnalysis({ token: await stranger.token() });
    const unknown = newId('analysis');
    const live = await connect({ token: await org.token() });

    for (const id of [unknown, foreign]) {
      expect(await live.request({ type: 'subscribe', analysis_id: id })).toEqual({
        type: 'error',
        analysis_id: id,
        error: { code: 'NOT_FOUND', message: expect.stringContaining(id) },
      });
    }
    expect(
      (await live.request({ type: 'subscribe', session_id: '*', analysis_id: '*' })).error,
    ).toEqual({ code: 'INVALID_REQUEST', message: expect.stringContaining('not both') });
    expect((await live.request({ type: 'subscribe' })).error).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('"analysis_id"'),
    });
    expect((await live.request({ type: 'subscribe', analysis_id: 'anal_123' })).error).toEqual({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('"analysis_id" must be'),
    });
    // A failed subscription holds nothing.
    expect(a.api.get(SessionUpdatesGateway).subscriptionCount).toBe(0);
    expect(await live.request({ type: 'unsubscribe', analysis_id: '*' })).toEqual({
      type: 'unsubscribed',
      analysis_id: '*',
    });
    expect(live.socket.readyState).toBe(WebSocket.OPEN);
  });
});
