import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  AppError,
  newUuid,
  toPrefixedId,
  withRequestOrigin,
  type Principal,
  type Tenant,
} from '#common';
import { rowMapping, Sql, tenantConditions, type Transaction } from '#database';
import { EventLog } from '#events';
import { WorkCasesRepository, type WorkCase } from '#history';
import {
  PluggedWork,
  WorkLifecycle,
  WorkTable,
  type CreatedEvent,
  type WorkIdentity,
  type WorkKind,
} from '#work';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type HttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * The contract of libs/work's lifecycle, proved by a fourth kind of work
 * defined here and nowhere else: a "probe" that an engine of its own runs
 * in two steps. Everything below the plug-in — creating one or a batch,
 * starting it through the outbox and the shared `work` queue, its progress
 * and completion events reaching a webhook endpoint and a live socket,
 * cancelling, deleting with redaction and audit, lists, the plan's
 * concurrent-work limit and the history case — is the lifecycle's, with no
 * code for probes outside this file (docs/adding-a-feature.md walks
 * through it).
 */

// --- The plug-in: a table, a repository, a kind and a runner ------------------------

const PROBES_TABLE = `CREATE TABLE IF NOT EXISTS probes (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL,
  mode text NOT NULL,
  name text NOT NULL,
  status text NOT NULL,
  progress integer NOT NULL DEFAULT 0,
  engine text NOT NULL,
  result jsonb,
  failure_reason text,
  failure_message text,
  event_sequence integer NOT NULL DEFAULT 0,
  batch_id uuid,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  estimated_completion timestamptz
)`;

type ProbeStatus = 'queued' | 'running' | 'completed' | 'failed';

interface Probe {
  id: string;
  organizationId: string;
  mode: Tenant['mode'];
  name: string;
  status: ProbeStatus;
  progress: number;
  engine: string;
  result: { echo: string } | null;
  failureReason: string | null;
  failureMessage: string | null;
  eventSequence: number;
  batchId: string | null;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  estimatedCompletion: Date | null;
}

const PROBE = rowMapping<Probe, string>(
  'probes',
  {
    id: 'id',
    organization_id: 'organizationId',
    mode: 'mode',
    name: 'name',
    status: 'status',
    progress: 'progress',
    engine: 'engine',
    result: 'result',
    failure_reason: 'failureReason',
    failure_message: 'failureMessage',
    event_sequence: 'eventSequence',
    batch_id: 'batchId',
    created_at: 'createdAt',
    updated_at: 'updatedAt',
    completed_at: 'completedAt',
    estimated_completion: 'estimatedCompletion',
  },
  ['result'],
);

type FinishedProbe = Pick<
  Probe,
  'id' | 'organizationId' | 'mode' | 'name' | 'status' | 'updatedAt' | 'completedAt'
>;

const PROBE_CASE = rowMapping<FinishedProbe, string>('probes', {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  name: 'name',
  status: 'status',
  updated_at: 'updatedAt',
  completed_at: 'completedAt',
});

function probeCase(probe: FinishedProbe): WorkCase {
  return {
    tenant: { organizationId: probe.organizationId, mode: probe.mode },
    sourceType: 'probe' as WorkCase['sourceType'],
    sourceId: probe.id,
    type: 'probe',
    subtype: null,
    workStatus: probe.status,
    classified: false,
    date: probe.completedAt ?? probe.updatedAt,
    target: probe.name,
    analysts: [],
    durationMinutes: null,
    modality: null,
    phases: [],
    descriptors: [],
    description: null,
    latitude: null,
    longitude: null,
    confidenceScore: null,
    chanceBaseline: null,
  };
}

const RUNNING: ProbeStatus[] = ['queued', 'running'];

class ProbesRepository extends WorkTable<Probe, FinishedProbe, never, { status?: ProbeStatus }> {
  constructor(sql: Sql, cases: WorkCasesRepository) {
    super(sql, cases, {
      table: 'probes',
      rows: PROBE,
      caseRows: PROBE_CASE,
      toCase: probeCase,
      running: RUNNING,
      listConditions: (tenant, filter) => {
        const where = tenantConditions(tenant);
        if (filter.status) where.and(`status = ${where.param(filter.status)}`);
        return where;
      },
    });
  }

  /** One guarded step: a running probe moves on (never back), as a runner's steps must. */
  async advance(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    step: { status: ProbeStatus; progress: number; result: { echo: string } | null },
    sequence: number,
  ): Promise<boolean> {
    const written = await this.write(
      tx,
      tenant,
      `UPDATE probes SET status = $2, progress = $3, result = $4, event_sequence = $5,
              completed_at = CASE WHEN $2 = 'completed' THEN now() END, updated_at = now()
        WHERE id = $1 AND organization_id = $6 AND mode = $7
          AND status IN ('queued', 'running') AND progress < $3`,
      [id, step.status, step.progress, step.result, sequence, tenant.organizationId, tenant.mode],
    );
    return written > 0;
  }
}

/** The probe's names, read by the API side (WorkKind) and the worker (PluggedWork) alike. */
const PROBE_IDENTITY: WorkIdentity<Probe> = {
  idPrefix: 'prb',
  noun: 'probe',
  feature: 'probes',
  eventIdField: 'probe_id',
  deletedAction: 'probe.deleted',
  failedEvent: (probe, failure, sequence) =>
    probeEvent('probe.failed', probe, sequence, { reason: failure.reason }),
};

const probeId = (probe: Pick<Probe, 'id'>) => toPrefixedId(PROBE_IDENTITY.idPrefix, probe.id);

/** The events of the catalogue are the service's; a fourth kind's are its own. */
function probeEvent(type: string, probe: Probe, sequence: number, extra = {}): CreatedEvent {
  return {
    type,
    data: { probe_id: probeId(probe), name: probe.name, status: probe.status, sequence, ...extra },
  } as unknown as CreatedEvent;
}

function probeKind(table: ProbesRepository): WorkKind<Probe> {
  return {
    identity: PROBE_IDENTITY,
    table,
    concurrency: { running: RUNNING, noun: 'probes', field: 'concurrent_probes' },
    cancelledMessage: 'The probe was cancelled',
    creation: {
      engineName: 'probe-engine',
      batchKind: 'probes' as never,
      batchField: 'probes.',
      build: (tenant, { input, engine }, _computed, { batchId, now }) => ({
        id: newUuid(),
        organizationId: tenant.organizationId,
        mode: tenant.mode,
        name: (input as { name: string }).name,
        status: 'queued',
        progress: 0,
        engine,
        result: null,
        failureReason: null,
        failureMessage: null,
        eventSequence: 1,
        batchId,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
        estimatedCompletion: new Date(now.getTime() + 60_000),
      }),
      createdEvent: (probe) => probeEvent('probe.created', probe, 1),
    },
  };
}

/**
 * The probe engine: half way, then done, each step a guarded transition with
 * its event. A probe named `hold …` stops half way, to be cancelled.
 */
function probeRunner(table: ProbesRepository, events: EventLog) {
  const step = (tenant: Tenant, id: string, next: ProbeStatus, progress: number) =>
    table.transitionWithSequence(tenant, id, async (tx, sequence) => {
      const probe = await table.find(tenant, id, tx);
      if (!probe) return false;
      const result = next === 'completed' ? { echo: probe.name } : null;
      const moved = await table.advance(
        tx,
        tenant,
        id,
        { status: next, progress, result },
        sequence,
      );
      if (!moved) return false;
      const type = next === 'completed' ? 'probe.completed' : 'probe.progress_updated';
      const { data } = probeEvent(type, { ...probe, status: next }, sequence, { progress });
      await events.append(tx, tenant, type as never, data as never, null);
      return true;
    });
  return async (tenant: Tenant, id: string) => {
    if (!(await step(tenant, id, 'running', 50))) return;
    const probe = await table.find(tenant, id);
    if (probe?.name.startsWith('hold')) return;
    await step(tenant, id, 'completed', 100);
  };
}

// --- The lifecycle around it ------------------------------------------------------------

let stack: Stack;
let client: TestClient;
let ca: TestCertificateAuthority;
let receiver: HttpsReceiver;
let org: TestOrganization;
let lifecycle: WorkLifecycle;
let kind: WorkKind<Probe>;
let probes: ProbesRepository;
let tenant: Tenant;
let principal: Principal;
let socket: WebSocket;
const streamed: { type: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  receiver = await startHttpsReceiver({ certificate: ca.leaf });
  stack = await startStack({
    env: { OUTBOUND_EXTRA_CA_FILE: ca.caFile, OUTBOUND_PRIVATE_ALLOWLIST: 'localhost' },
  });
  client = await TestClient.for(stack);
  await stack.api.get(Sql).query(PROBES_TABLE, []);

  // Plugging the kind in: the API side creates, the worker side runs.
  probes = new ProbesRepository(stack.api.get(Sql), stack.api.get(WorkCasesRepository));
  kind = probeKind(probes);
  lifecycle = stack.api.get(WorkLifecycle);
  const workerProbes = new ProbesRepository(
    stack.worker!.get(Sql),
    stack.worker!.get(WorkCasesRepository),
  );
  stack.worker!.get(PluggedWork).plugIn({
    identity: PROBE_IDENTITY,
    createdEvent: 'probe.created',
    run: probeRunner(workerProbes, stack.worker!.get(EventLog)),
  });

  org = await createOrganization(stack, client);
  tenant = { organizationId: org.organizationId, mode: 'live' };
  principal = { ...tenant, credential: 'api_key', subject: 'key_probe_test', scopes: [] };
  const token = await org.token();
  const url = receiver.url.replace('127.0.0.1', 'localhost');
  const hook = await client.post('/v2/webhooks', { token, json: { url, events: ['*'] } });
  expect(hook.status, hook.text).toBe(201);

  const key = await org.apiKey();
  socket = new WebSocket(`${stack.baseUrl.replace(/^http/, 'ws')}/v2/events/listen?mode=live`, {
    headers: { 'x-api-key': key },
  });
  socket.on('message', (raw) => {
    const frame = JSON.parse(String(raw));
    if (typeof frame.type === 'string' && frame.data) streamed.push(frame);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
});
afterAll(async () => {
  socket?.terminate();
  await stack?.close();
  await receiver?.close();
  await ca?.cleanup();
});

/** The webhook deliveries received so far, as their bodies. */
function delivered(): { type: string; data: Record<string, unknown> }[] {
  return receiver.requests.map((request) => JSON.parse(request.rawBody));
}

function eventsOf(
  source: { type: string; data: Record<string, unknown> }[],
  probe: Pick<Probe, 'id'>,
): string[] {
  return source.filter((event) => event.data.probe_id === probeId(probe)).map((e) => e.type);
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('a fourth kind of work plugged into libs/work', () => {
  it('is created, queued through the outbox, run, and announced to webhooks and live sockets', async () => {
    const { created } = await lifecycle.create(kind, tenant, [{ name: 'first' }], 'req_p1', false);
    const probe = created[0]!;
    expect(probe).toMatchObject({ status: 'queued', engine: 'probe-engine', eventSequence: 1 });

    const done = await waitFor(async () => {
      const stored = await lifecycle.find(kind, tenant, probeId(probe));
      return stored.status === 'completed' ? stored : null;
    });
    expect(done).toMatchObject({ progress: 100, result: { echo: 'first' }, eventSequence: 3 });

    const sequence = ['probe.created', 'probe.progress_updated', 'probe.completed'];
    await waitFor(async () => (eventsOf(delivered(), probe).length === 3 ? true : null));
    expect(eventsOf(delivered(), probe)).toEqual(sequence);
    await waitFor(async () => (eventsOf(streamed, probe).length === 3 ? true : null));
    expect(eventsOf(streamed, probe)).toEqual(sequence);

    // Finished work is history: its case is written in the transaction that finished it.
    const [workCase] = await stack.api
      .get(Sql)
      .rows<{ source_type: string; target: string; work_status: string }>(
        `SELECT source_type, target, work_status FROM history_cases
          WHERE source_id = $1 AND organization_id = $2 AND mode = $3`,
        [probe.id, tenant.organizationId, tenant.mode],
      );
    expect(workCase).toEqual({ source_type: 'probe', target: 'first', work_status: 'completed' });
  });

  it('is cancelled while it runs, with its failure event, and refused once finished', async () => {
    const { created } = await lifecycle.create(kind, tenant, [{ name: 'hold me' }], null, false);
    const probe = created[0]!;
    await waitFor(async () => {
      const stored = await lifecycle.find(kind, tenant, probeId(probe));
      return stored.status === 'running' ? stored : null;
    });
    const cancelled = await lifecycle.cancel(kind, tenant, probeId(probe), 'req_p2');
    expect(cancelled).toMatchObject({
      status: 'failed',
      failureReason: 'cancelled',
      failureMessage: 'The probe was cancelled',
      eventSequence: 3,
    });
    await waitFor(async () =>
      eventsOf(delivered(), probe).includes('probe.failed') ? true : null,
    );

    const again = await refusal(lifecycle.cancel(kind, tenant, probeId(probe), null));
    expect(again.code).toBe('CONFLICT');
    expect(again.message).toBe(`Probe ${probeId(probe)} has already failed`);
  });

  it('is deleted with its case, its events redacted and an audit event kept', async () => {
    const { created } = await lifecycle.create(kind, tenant, [{ name: 'secret' }], null, false);
    const probe = created[0]!;
    await waitFor(async () => {
      const stored = await lifecycle.find(kind, tenant, probeId(probe));
      return stored.status === 'completed' ? true : null;
    });
    // The audit event names the request it belongs to, whoever deletes: here a request's origin as the API sets it.
    await withRequestOrigin({ requestId: 'req_p3', ip: '203.0.113.9', userAgent: 'probe/1' }, () =>
      lifecycle.delete(kind, principal, probeId(probe)),
    );

    const missing = await refusal(lifecycle.find(kind, tenant, probeId(probe)));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain('probe');
    const sql = stack.api.get(Sql);
    const logged = await sql.rows<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE organization_id = $1 AND mode = $2 AND data->>'probe_id' = $3`,
      [tenant.organizationId, tenant.mode, probeId(probe)],
    );
    expect(logged.length).toBe(3);
    for (const { data } of logged) expect(data).not.toHaveProperty('name');
    const cases = await sql.rows('SELECT 1 FROM history_cases WHERE source_id = $1', [probe.id]);
    expect(cases).toEqual([]);
    const audit = await sql.rows(
      `SELECT action, actor_type, actor_id, target_type, request_id, ip, user_agent FROM audit_events
        WHERE organization_id = $1 AND target_id = $2`,
      [tenant.organizationId, probeId(probe)],
    );
    expect(audit).toEqual([
      {
        action: 'probe.deleted',
        actor_type: 'api_key',
        actor_id: 'key_probe_test',
        target_type: 'probe',
        request_id: 'req_p3',
        ip: '203.0.113.9',
        user_agent: 'probe/1',
      },
    ]);
  });

  it('is created in batches, and listed page by page', async () => {
    const names = [{ name: 'batch one' }, { name: 'batch two' }, { name: 'batch three' }];
    const { batch, created } = await lifecycle.create(kind, tenant, names, 'req_p4', true);
    expect(created.map((probe) => probe.batchId)).toEqual([batch!.id, batch!.id, batch!.id]);
    expect((await probes.batchItems(tenant, batch!.id)).map((probe) => probe.name)).toEqual(
      names.map((item) => item.name),
    );

    const offset = await probes.list(tenant, {}, { limit: 2, offset: 0 });
    expect(offset.records).toHaveLength(2);
    expect(offset.total).toBeGreaterThanOrEqual(5);
    const first = await probes.page(tenant, {}, { afterId: null, before: null, perPage: 2 });
    expect(first.rows.slice(0, 2).map((probe) => probe.id)).toEqual(
      offset.records.map((probe) => probe.id),
    );
    expect(first.total).toBe(offset.total);
  });

  it("counts against the plan's concurrent work, refusing what goes over with 429", async () => {
    // The free plan runs five pieces of work of a kind at once.
    const free = await createOrganization(stack, client, 'live', 'free');
    const small: Tenant = { organizationId: free.organizationId, mode: 'live' };
    const holds = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name: `hold ${name}` }));
    const held = await lifecycle.create(kind, small, holds, null, true);
    expect(held.created).toHaveLength(5);
    const over = await refusal(lifecycle.create(kind, small, [{ name: 'hold f' }], null, false));
    expect(over.code).toBe('RATE_LIMITED');
    expect(over.details).toMatchObject({ field: 'concurrent_probes', limit: 5 });
    // Refused whole: nothing of the sixth was stored.
    expect((await probes.list(small, {}, { limit: 10, offset: 0 })).total).toBe(5);
  });
});
