import { Test, type TestingModule } from '@nestjs/testing';
import { Logger } from 'nestjs-pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '#common';
import { Sql } from '#database';
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
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/** An engine of people, as the analyst workflow will plug one in: here it reports verified work. */
class RecordingAnalystEngine implements SessionEngine {
  readonly name = 'analyst' as const;
  readonly kind = 'session' as const;
  readonly version = 'analyst-test-1';
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
const analyst = new RecordingAnalystEngine();

/** A worker whose deployment has one more engine than the API's. */
async function startWorker(): Promise<TestingModule> {
  const module = await Test.createTestingModule({
    imports: [WorkerModule.forSettings(stack.settings)],
  })
    .overrideProvider(ENGINES)
    .useValue([new SimulatedSessionEngine(), analyst])
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
  it('runs a session with the engine it was stored with, not a hard-coded one', async () => {
    const org = await createOrganization(stack, client);
    const token = await org.token();
    const created = await client.post('/v1/sessions', {
      token,
      json: { type: 'remote_viewing', target: 'Engine seam' },
    });
    const session = created.body.session_id as string;
    // Stored for the analyst engine before any worker runs, as the API will store it once the
    // analyst engine is part of its deployment too.
    await stack.api
      .get(Sql)
      .rows(`UPDATE sessions SET engine = 'analyst' WHERE id = $1`, [
        parsePublicId('session', session),
      ]);
    worker = await startWorker();
    const results = await waitFor(async () => {
      const response = await client.get(`/v1/sessions/${session}/results`, { token });
      return response.body.status === 'completed' ? response.body : null;
    }, 30_000);
    expect(results.metadata).toMatchObject({
      engine: 'analyst',
      engine_version: 'analyst-test-1',
      evidence: 'verified',
    });
    expect(analyst.inputs).toEqual([expect.objectContaining({ target: 'Engine seam' })]);
  });

  it('leaves sandbox work with the simulated engine', async () => {
    const org = await createOrganization(stack, client, 'test');
    const created = await client.post('/v1/sessions', {
      token: await org.token(),
      json: { type: 'dowsing', target: 'Sandbox well' },
    });
    const results = await waitFor(async () => {
      const response = await client.get(`/v1/sessions/${created.body.session_id}/results`, {
        token: await org.token(),
      });
      return response.body.status === 'completed' ? response.body : null;
    }, 30_000);
    expect(results.metadata).toMatchObject({ engine: 'simulated', evidence: 'prior' });
  });
});
