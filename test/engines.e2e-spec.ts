import { Test, type TestingModule } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  SimulatedSessionEngine,
  type SessionEngine,
  type SessionEngineOutcome,
  type SessionWorkInput,
} from '#engines';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { addMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Another implementation of the simulated engine, as a deployment might ship
 * a new one: it records its inputs and reports verified work, so the test
 * sees the worker ran this engine, found in the registry by the stored name.
 */
class RecordingEngine implements SessionEngine {
  readonly name = 'simulated' as const;
  readonly kind = 'session' as const;
  readonly version = 'recording-test-1';
  readonly inputs: SessionWorkInput[] = [];
  private readonly simulated = new SimulatedSessionEngine();

  run(input: SessionWorkInput, orgSeed: string): Promise<SessionEngineOutcome> {
    this.inputs.push(input);
    const outcome = this.simulated.outcome(input, orgSeed);
    if (outcome.status !== 'completed') return Promise.resolve(outcome);
    return Promise.resolve({
      ...outcome,
      engine: this.name,
      engineVersion: this.version,
      evidence: 'verified',
    });
  }
}

let stack: Stack;
let client: TestClient;
let worker: TestingModule;
const recording = new RecordingEngine();

/** A worker whose deployment has another session engine than the API's. */
async function startWorker(): Promise<TestingModule> {
  const module = await Test.createTestingModule({
    imports: [WorkerModule.forSettings(stack.settings)],
  })
    .overrideProvider(ENGINES)
    .useValue([recording])
    .compile();
  module.useLogger(module.get(Logger));
  await module.init();
  return module;
}

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
});
afterAll(async () => {
  await worker?.close();
  await stack?.close();
});

describe('engines are chosen per piece of work', () => {
  it('runs a session with the registry’s engine of its stored name, not a hard-coded one', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'Engine seam' },
    });
    const session = created.body.session_id as string;
    worker = await startWorker();
    const results = await waitFor(async () => {
      const response = await client.get(`/v1/sessions/${session}/results`, { token });
      return response.body.status === 'completed' ? response.body : null;
    });
    expect(results.metadata).toMatchObject({
      engine: 'simulated',
      engine_version: 'recording-test-1',
      evidence: 'verified',
    });
    expect(recording.inputs).toEqual([expect.objectContaining({ target: 'Engine seam' })]);
  });

  it('leaves sandbox work with the simulated engine even where the organisation has analysts', async () => {
    const org = await createOrganization(stack, client, 'test');
    await addMember(stack, org, ['analyst']);
    const created = await client.post('/v1/sessions', {
      token: await org.token(),
      json: { type: 'dowsing', target: 'Sandbox well' },
    });
    const results = await waitFor(async () => {
      const response = await client.get(`/v1/sessions/${created.body.session_id}/results`, {
        token: await org.token(),
      });
      return response.body.status === 'completed' ? response.body : null;
    });
    expect(results.metadata).toMatchObject({ engine: 'simulated' });
  });
});
