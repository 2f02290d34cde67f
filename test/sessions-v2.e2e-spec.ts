import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  token = await (await createOrganization(stack, client)).token();
});
afterAll(() => stack?.close());

describe('version 2 sessions', () => {
  it('creates with POST /v2/sessions/create and reads the later-generation result shape', async () => {
    const created = await client.post('/v2/sessions/create', {
      token,
      json: { type: 'remote_viewing', target: 'Lighthouse', privacy_level: 'public' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'initiated',
      privacy_level: 'public',
      duration_minutes: 30,
      progress: 0,
      results_available: false,
    });
    const done = await waitFor(async () => {
      const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token });
      return read.body.status === 'completed' ? read.body : null;
    });
    const { statistical_validation, collaborative_insights } = done.results;
    expect(statistical_validation.p_value).toBeGreaterThan(0);
    expect(statistical_validation.p_value).toBeLessThanOrEqual(1);
    expect(statistical_validation.confidence_interval).toHaveLength(2);
    expect(statistical_validation.sample_size).toBeGreaterThan(0);
    expect(collaborative_insights.length).toBeGreaterThan(0);
    expect(done.metadata).toMatchObject({ engine: 'simulated', evidence: 'prior' });
  });

  it('does not accept the v1 quick-start spelling', async () => {
    const response = await client.post('/v2/sessions/create', {
      token,
      json: { cue: 'x', session_type: 'remote_viewing' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
  });
});
