import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startFileServer, type FileServer } from './support/file-server.js';
import {
  createTestCertificateAuthority,
  startHttpsReceiver,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

let stack: Stack;
let client: TestClient;
let ca: TestCertificateAuthority;
let files: FileServer;
let org: TestOrganization;
let token: string;

/** Rio de Janeiro, where photo-gps.jpg was taken (−22.9519, −43.2105). */
const RIO = { latitude: -22.95, longitude: -43.21 };

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  files = await startFileServer({ certificate: ca.leaf });
  stack = await startStack({
    env: {
      OUTBOUND_EXTRA_CA_FILE: ca.caFile,
      OUTBOUND_PRIVATE_ALLOWLIST: 'localhost',
      REFERENCE_MATERIAL_TIMEOUT_MS: '3000',
      REFERENCE_MATERIAL_MAX_BYTES: String(1024 * 1024),
    },
  });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  token = await org.token();
});
afterAll(async () => {
  await stack?.close();
  await files?.close();
  await ca?.cleanup();
});

function submit(body: Record<string, unknown>, credential = token, path = '/v1/analysis/targets') {
  return client.post(path, { token: credential, json: body });
}

async function finished(id: string, credential = token) {
  return waitFor(async () => {
    const status = await client.get(`/v1/analysis/${id}`, { token: credential });
    return ['completed', 'failed'].includes(status.body.status) ? status : null;
  });
}

describe('POST /v1/analysis/targets → worker → results', () => {
  it('fetches and reads the material, cross-references nothing yet, and serves results built from it', async () => {
    const submitted = await submit({
      target_type: 'location',
      analysis_type: 'comprehensive',
      priority: 'high',
      description: 'The stairs by the harbour',
      reference_material: {
        photos: [files.url('/photo-gps.jpg'), files.url('/missing.jpg')],
        documents: [files.url('/two-pages.pdf')],
        coordinates: RIO,
      },
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toEqual({
      analysis_id: expect.stringMatching(/^anal_[0-9a-z]{26}$/),
      status: 'queued',
      estimated_completion: expect.any(String),
      priority: 'high',
      created_at: expect.any(String),
    });
    expect(Date.parse(submitted.body.estimated_completion)).toBeGreaterThan(
      Date.parse(submitted.body.created_at),
    );
    const id = submitted.body.analysis_id;

    const done = await finished(id);
    expect(done.body).toMatchObject({
      analysis_id: id,
      target_type: 'location',
      analysis_type: 'comprehensive',
      status: 'completed',
      progress: 100,
      current_step: 'completed',
      results_available: true,
      processing_time: expect.stringMatching(/(milli)?seconds?$/),
    });
    const [photo, missing, pdf] = done.body.reference_material.items;
    expect(photo).toMatchObject({
      url: files.url('/photo-gps.jpg'),
      kind: 'photo',
      status: 'fetched',
      error: null,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      content_type: 'image/jpeg',
      width: 64,
      height: 48,
      exif: { captured_at: '2024-05-17T14:32:10.000Z' },
    });
    expect(photo.exif.latitude).toBeCloseTo(-22.9519, 3);
    expect(photo.exif.longitude).toBeCloseTo(-43.2105, 3);
    expect(missing).toMatchObject({ kind: 'photo', status: 'failed', error: 'HTTP 404' });
    expect(pdf).toMatchObject({ kind: 'document', status: 'fetched', pages: 2 });
    expect(pdf.text_excerpt).toContain('Page one: the lighthouse at dawn.');

    const results = await client.get(`/v1/analysis/${id}/results`, { token });
    expect(results.status).toBe(200);
    expect(results.body.results).toMatchObject({
      summary: expect.stringMatching(/^Comprehensive analysis of a location target: 2 of 3/),
      confidence_score: expect.any(Number),
      risk_assessment: {
        level: expect.stringMatching(/^(medium|high|critical)$/),
        factors: expect.arrayContaining(['unreadable_material', 'prior_only_evidence']),
      },
    });
    expect(results.body.results.key_findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Photo 1 \(64×48 JPEG\) was taken on 2024-05-17 at \d+ m from/),
        'Photo 2 could not be used: HTTP 404.',
        expect.stringContaining('Document 1 (PDF, 2 pages) reads: “Page one: the lighthouse'),
      ]),
    );
    expect(results.body.metadata).toMatchObject({
      engine: 'simulated',
      engine_version: expect.any(String),
      evidence: 'prior',
      analysis_type: 'comprehensive',
      material_fetched: 2,
      material_failed: 1,
      earlier_work: [],
      score_components: { analyst_agreement: expect.any(Number), judging: { trials: 36 } },
    });

    const events = await client.get('/v2/events?per_page=100', { token });
    const mine = events.body.data
      .filter((event: { data: { analysis_id?: string } }) => event.data.analysis_id === id)
      .map((event: { type: string }) => event.type)
      .reverse();
    expect(mine[0]).toBe('analysis.created');
    expect(mine[1]).toBe('analysis.started');
    expect(mine.at(-1)).toBe('analysis.completed');
    expect(mine.filter((type: string) => type === 'analysis.progress_updated')).toHaveLength(4);
    const completed = events.body.data.find(
      (event: { type: string; data: { analysis_id?: string } }) =>
        event.type === 'analysis.completed' && event.data.analysis_id === id,
    );
    expect(completed.data).toMatchObject({
      analysis_id: id,
      target_type: 'location',
      status: 'completed',
      confidence_score: results.body.results.confidence_score,
      results: {
        summary: results.body.results.summary,
        key_findings: results.body.results.key_findings,
        risk_assessment: results.body.results.risk_assessment,
      },
      processing_time: results.body.processing_time,
      processing_time_ms: expect.any(Number),
      completed_at: done.body.completed_at,
    });
  });

  it('names the photo taken far from the given coordinates as a risk', async () => {
    const { body } = await submit({
      target_type: 'location',
      analysis_type: 'quick_scan',
      reference_material: {
        photos: [files.url('/photo-offset.jpg')],
        coordinates: RIO,
      },
    });
    await finished(body.analysis_id);
    const results = await client.get(`/v1/analysis/${body.analysis_id}/results`, { token });
    expect(results.body.results.risk_assessment.factors).toEqual([
      'gps_far_from_coordinates',
      'prior_only_evidence',
    ]);
    expect(results.body.results.key_findings[0]).toMatch(
      /^Photo 1 \(40×30 JPEG\) was taken on 2024-05-17 at 9\d{3}\.\d km from the given coordinates\.$/,
    );
    expect(results.body.metadata.score_components.analyst_agreement).toBeNull();
  });

  it('turns material that hangs, lies about its type, is too large or redirects to loopback into findings, not failures', async () => {
    const { body } = await submit({
      target_type: 'object',
      analysis_type: 'quick_scan',
      reference_material: {
        photos: [
          files.url('/hang'),
          files.url('/html-as-jpeg'),
          files.url('/redirect/to-loopback'),
        ],
        documents: [files.url('/endless')],
      },
    });
    const done = await finished(body.analysis_id);
    expect(done.body.status).toBe('completed');
    const items = done.body.reference_material.items;
    expect(items.map((item: { status: string }) => item.status)).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
    expect(items[0].error).toMatch(/within/);
    expect(items[1].error).toMatch(/text\/html/);
    expect(items[2].error).toMatch(/^the destination is not allowed/);
    expect(items[3].error).toMatch(/larger than/);
    expect(files.requests).not.toContain('/photo-gps.jpg?via=loopback');
    const results = await client.get(`/v1/analysis/${body.analysis_id}/results`, { token });
    expect(results.body.results.risk_assessment).toEqual({
      level: 'high',
      factors: ['all_material_unreadable', 'prior_only_evidence'],
    });
  });

  it('gives the same results for the same request and material, and cross-references earlier work on the same description', async () => {
    const body = {
      target_type: 'event',
      analysis_type: 'comprehensive',
      description: 'The  Harbour Festival',
      // Lisbon: no other analysis of this organisation lies within 25 km.
      reference_material: { coordinates: { latitude: 38.72, longitude: -9.14 } },
    };
    const first = await submit(body);
    await finished(first.body.analysis_id);
    const second = await submit(body);
    await finished(second.body.analysis_id);
    const [a, b] = await Promise.all(
      [first, second].map((s) =>
        client.get(`/v1/analysis/${s.body.analysis_id}/results`, { token }),
      ),
    );
    // A resubmission is not independent earlier work: nothing to cross-reference, same outcome.
    expect(b.body.results).toEqual(a.body.results);
    expect(b.body.metadata.earlier_work).toEqual([]);

    const other = await submit({
      ...body,
      description: 'the harbour festival',
      analysis_type: 'deep_dive',
    });
    await finished(other.body.analysis_id);
    const deep = await client.get(`/v1/analysis/${other.body.analysis_id}/results`, { token });
    expect(deep.body.metadata.earlier_work).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'analysis',
          id: first.body.analysis_id,
          relation: 'nearby',
          distance_meters: 0,
        }),
      ]),
    );
    const finding = deep.body.results.key_findings.find((f: string) =>
      f.startsWith('2 earlier pieces of finished work lie within 25 km of the coordinates'),
    );
    expect(finding).toContain(first.body.analysis_id);
    expect(finding).toContain(second.body.analysis_id);
  });

  it('answers the older name POST /v1/analysis/submit the same way', async () => {
    const response = await submit(
      { target_type: 'person', analysis_type: 'quick_scan', priority: 'low' },
      token,
      '/v1/analysis/submit',
    );
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ status: 'queued', priority: 'low' });
    const done = await finished(response.body.analysis_id);
    expect(done.body).toMatchObject({ status: 'completed', target_type: 'person' });
  });

  it('fails on [fail] in the description, with the reason in the status and the event', async () => {
    const { body } = await submit({
      target_type: 'object',
      analysis_type: 'quick_scan',
      description: 'Broken on purpose [fail]',
    });
    const done = await finished(body.analysis_id);
    expect(done.body).toMatchObject({
      status: 'failed',
      failure_reason: 'engine_failure',
      failure_message: expect.stringContaining('[fail]'),
      results_available: false,
    });
    const results = await client.get(`/v1/analysis/${body.analysis_id}/results`, { token });
    expect(results.body.results).toBeUndefined();
    expect(results.body.failure_reason).toBe('engine_failure');
  });
});

describe('cancel and delete', () => {
  it('cancels a running analysis once; the second cancel is a conflict', async () => {
    const { body } = await submit({
      target_type: 'object',
      analysis_type: 'deep_dive',
      description: 'A slow one [slow]',
    });
    const cancelled = await client.post(`/v1/analysis/${body.analysis_id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'failed', failure_reason: 'cancelled' });
    const again = await client.post(`/v1/analysis/${body.analysis_id}/cancel`, { token });
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ field: 'status' });
    // The worker's next step sees the stored state and stops: it stays cancelled.
    const later = await finished(body.analysis_id);
    expect(later.body).toMatchObject({ status: 'failed', failure_reason: 'cancelled' });
  });

  it('deletes an analysis: gone from reads, its events redacted', async () => {
    const { body } = await submit({
      target_type: 'location',
      analysis_type: 'quick_scan',
      description: 'Secret place',
    });
    await finished(body.analysis_id);
    const deleted = await client.delete(`/v1/analysis/${body.analysis_id}`, { token });
    expect(deleted.status).toBe(204);
    expect((await client.get(`/v1/analysis/${body.analysis_id}`, { token })).status).toBe(404);
    const events = await client.get('/v2/events?per_page=100', { token });
    const named = events.body.data.filter(
      (event: { data: { analysis_id?: string } }) => event.data.analysis_id === body.analysis_id,
    );
    expect(named.length).toBeGreaterThan(0);
    for (const event of named) {
      expect(Object.keys(event.data).sort()).toEqual(['analysis_id', 'redacted', 'sequence']);
    }
  });
});

describe('bad input names its field', () => {
  it.each([
    [{ target_type: 'planet' }, 'target_type'],
    [{ target_type: 'object', priority: 'asap' }, 'priority'],
    [{ target_type: 'object', analysis_type: 'scan' }, 'analysis_type'],
    [{ target_type: 'object', description: '' }, 'description'],
    [{ target_type: 'object', description: 'x'.repeat(1001) }, 'description'],
    [
      {
        target_type: 'object',
        reference_material: { photos: Array(21).fill('https://example.com/a.jpg') },
      },
      'reference_material.photos',
    ],
    [
      {
        target_type: 'object',
        reference_material: {
          photos: [
            'https://example.com/1.jpg',
            'https://example.com/2.jpg',
            'https://example.com/3.jpg',
            'http://example.com/4.jpg',
          ],
        },
      },
      'reference_material.photos.3',
    ],
    [
      {
        target_type: 'object',
        reference_material: { documents: [`https://example.com/${'a'.repeat(2050)}`] },
      },
      'reference_material.documents.0',
    ],
    [
      {
        target_type: 'object',
        reference_material: { documents: ['https://user:pw@example.com/a.pdf'] },
      },
      'reference_material.documents.0',
    ],
    [
      {
        target_type: 'location',
        reference_material: { coordinates: { latitude: 91, longitude: 0 } },
      },
      'reference_material.coordinates.latitude',
    ],
    [{ target_type: 'object', surprise: true }, 'surprise'],
  ])('%j → 400 naming %s', async (body, field) => {
    const response = await submit(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field } });
  });

  it('refuses an unknown analysis id as not found', async () => {
    for (const id of [
      'anal_01jh2x7v4ke8rbk3a8y0v0d7qz',
      'sess_01jh2x7v4ke8rbk3a8y0v0d7qz',
      'nonsense',
    ]) {
      const response = await client.get(`/v1/analysis/${id}`, { token });
      expect(response.status).toBe(404);
    }
  });
});

describe('batches', () => {
  it('queues a batch under both names and serves its status and results', async () => {
    for (const path of ['/v1/analysis/batch', '/v1/batch/analysis']) {
      const created = await client.post(path, {
        token,
        json: {
          analyses: [
            { target_type: 'object', analysis_type: 'quick_scan', priority: 'urgent' },
            { target_type: 'event', analysis_type: 'quick_scan' },
          ],
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        batch_id: expect.stringMatching(/^batch_/),
        kind: 'analyses',
        total: 2,
        counts: { queued: 2, processing: 0, completed: 0, failed: 0 },
      });
      expect(created.body.analyses.map((a: { priority: string }) => a.priority)).toEqual([
        'urgent',
        'medium',
      ]);
      const id = created.body.batch_id;
      const done = await waitFor(async () => {
        const status = await client.get(`/v1/batch/${id}/status`, { token });
        return status.body.status === 'completed' ? status : null;
      });
      expect(done.body).toMatchObject({
        kind: 'analyses',
        progress: 100,
        counts: { completed: 2 },
      });
      const results = await client.get(`/v1/batch/${id}/results`, { token });
      expect(results.body.results.map((r: { analysis_id: string }) => r.analysis_id)).toEqual(
        created.body.analyses.map((a: { analysis_id: string }) => a.analysis_id),
      );
      expect(results.body.results[0].results.summary).toMatch(/^Quick scan of an object target/);
    }
  });

  it('creates all or none: a bad item is named and nothing is queued', async () => {
    const before = await client.get('/v1/analysis?limit=1', { token });
    const response = await client.post('/v1/analysis/batch', {
      token,
      json: {
        analyses: [
          { target_type: 'object' },
          { target_type: 'object' },
          { target_type: 'object' },
          { target_type: 'object', priority: 'whenever' },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('analyses.3.priority');
    const urlProblem = await client.post('/v1/batch/analysis', {
      token,
      json: {
        analyses: [{ target_type: 'object', reference_material: { photos: ['ftp://x/y'] } }],
      },
    });
    expect(urlProblem.body.error.details.field).toBe('analyses.0.reference_material.photos.0');
    const after = await client.get('/v1/analysis?limit=1', { token });
    expect(after.body.total).toBe(before.body.total);
  });
});

describe('lists', () => {
  it('filters the v1 list and pages the v2 list with a cursor', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    for (const priority of ['low', 'urgent', 'low']) {
      await submit({ target_type: 'object', analysis_type: 'quick_scan', priority }, ownToken);
    }
    const low = await client.get('/v1/analysis?priority=low', { token: ownToken });
    expect(low.body).toMatchObject({ total: 2, limit: 20, offset: 0, has_more: false });
    expect(low.body.results.every((a: { priority: string }) => a.priority === 'low')).toBe(true);
    const bad = await client.get('/v1/analysis?target_type=planet', { token: ownToken });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.field).toBe('target_type');

    const first = await client.get('/v2/analysis?per_page=2', { token: ownToken });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.pagination).toMatchObject({ total: 3, has_next: true });
    const second = await client.get(
      `/v2/analysis?per_page=2&cursor=${first.body.pagination.next_cursor}`,
      { token: ownToken },
    );
    expect(second.body.data).toHaveLength(1);
    const ids = [...first.body.data, ...second.body.data].map(
      (a: { analysis_id: string }) => a.analysis_id,
    );
    expect(new Set(ids).size).toBe(3);
  });
});

describe('limits', () => {
  it("counts analyses in a pool of their own, the size of the plan's concurrent sessions", async () => {
    const free = await createOrganization(stack, client, 'live', 'free', { tier: 'custom' });
    const freeToken = await free.token();
    const slow = { target_type: 'object', analysis_type: 'deep_dive', description: 'Slow [slow]' };
    for (let i = 0; i < 5; i += 1) expect((await submit(slow, freeToken)).status).toBe(201);
    const refused = await submit(slow, freeToken);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({
      field: 'concurrent_analyses',
      limit: 5,
      plan: 'free',
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Sessions have their own pool.
    const session = await client.post('/v1/sessions', {
      token: freeToken,
      json: { type: 'remote_viewing', target: 'Still allowed' },
    });
    expect(session.status).toBe(201);
  });
});

describe('POST /v2/analysis/pattern-recognition', () => {
  it('reports descriptors, clusters and time patterns over finished work', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const { body } = await submit(
        {
          target_type: 'location',
          analysis_type: 'comprehensive',
          description: `Spring ${i}`,
          reference_material: { coordinates: { latitude: 48.85 + i * 0.001, longitude: 2.35 } },
        },
        ownToken,
      );
      ids.push(body.analysis_id);
    }
    for (const id of ids) await finished(id, ownToken);
    // Only analyses whose analysts agreed on some descriptor (a majority) list any.
    let described = 0;
    for (const id of ids) {
      const results = await client.get(`/v1/analysis/${id}/results`, { token: ownToken });
      if (results.body.results.descriptors.length > 0) described += 1;
    }

    const all = await client.post('/v2/analysis/pattern-recognition', {
      token: ownToken,
      json: {},
    });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({
      item_count: 4,
      items_by_kind: { session: 0, analysis: 4 },
      descriptors: { correction: 'holm', n_items: described },
      spatial_clusters: { n_points: 4, clusters: [{ size: 4, item_ids: expect.any(Array) }] },
      time_patterns: {
        time_zone: 'UTC',
        weekday: { counts: expect.any(Array), method: 'monte_carlo' },
      },
    });
    expect(all.body.spatial_clusters.clusters[0].item_ids.sort()).toEqual([...ids].sort());
    expect(all.body.time_patterns.weekday.counts.reduce((a: number, b: number) => a + b, 0)).toBe(
      4,
    );

    const picked = await client.post('/v2/analysis/pattern-recognition', {
      token: ownToken,
      json: { items: ids.slice(0, 2), correction: 'benjamini-hochberg' },
    });
    expect(picked.body).toMatchObject({
      item_count: 2,
      descriptors: { correction: 'benjamini-hochberg' },
    });

    const foreign = await client.post('/v2/analysis/pattern-recognition', {
      token,
      json: { items: [ids[0]] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details.field).toBe('items.0');
    const both = await client.post('/v2/analysis/pattern-recognition', {
      token: ownToken,
      json: { items: ids, filter: {} },
    });
    expect(both.body.error.details.field).toBe('filter');
    const backwards = await client.post('/v2/analysis/pattern-recognition', {
      token: ownToken,
      json: { filter: { date_from: '2026-02-01', date_to: '2026-01-01' } },
    });
    expect(backwards.body.error.details.field).toBe('filter.date_to');
  });
});

describe('webhooks', () => {
  it('delivers analysis.* events to an endpoint subscribed to them, signed, with the spec data', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    // Reached as localhost, the one host this stack allows although private.
    const receiver = await startHttpsReceiver({ certificate: ca.leaf });
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const hook = await client.post('/v1/webhooks', {
        token: ownToken,
        json: { url, events: ['analysis.created', 'analysis.completed'] },
      });
      expect(hook.status).toBe(201);
      const { body } = await submit(
        { target_type: 'person', analysis_type: 'quick_scan', description: 'Webhook target' },
        ownToken,
      );
      const requests = await receiver.waitForRequests(2);
      const deliveries = requests.map((request) => JSON.parse(request.rawBody));
      expect(deliveries.map((delivery) => delivery.type).sort()).toEqual([
        'analysis.completed',
        'analysis.created',
      ]);
      const completed = deliveries.find((delivery) => delivery.type === 'analysis.completed');
      expect(completed).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        livemode: true,
        data: {
          analysis_id: body.analysis_id,
          target_type: 'person',
          status: 'completed',
          results: { summary: expect.any(String), risk_assessment: { level: expect.any(String) } },
        },
      });
      expect(requests[0]!.headers['x-service-signature']).toEqual(expect.any(String));
    } finally {
      await receiver.close();
    }
  });
});
