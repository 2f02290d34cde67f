import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, Scope, type Mode } from '#common';
import { Sql } from '#database';
import { ReportRunner } from '#reports';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Reports: asked for with POST /v2/reports/generate, built by the worker,
 * read, listed, downloaded, deleted and expired; history reports as CSV and
 * JSON with classified cases left out and formula cells neutralised.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

interface SeedCase {
  type?: string;
  date: string;
  target: string;
  classified?: boolean;
  verdict?: 'hit' | 'partial' | 'miss' | null;
  chanceBaseline?: number | null;
  description?: string | null;
}

async function seedCases(org: TestOrganization, cases: SeedCase[], mode: Mode = 'live') {
  for (const [index, item] of cases.entries()) {
    await sql.rows(
      `INSERT INTO history_cases (organization_id, mode, id, source_type, external_id, type,
          work_status, classified, date, target, description, verdict, chance_baseline, verified_at)
        VALUES ($1, $2, $3, 'import', $4, $5, 'completed', $6, $7, $8, $9, $10, $11,
          CASE WHEN $10::text IS NULL THEN NULL ELSE now() END)`,
      [
        org.organizationId,
        mode,
        randomUUID(),
        `ext-${index}`,
        item.type ?? 'remote_viewing',
        item.classified ?? false,
        item.date,
        item.target,
        item.description ?? null,
        item.verdict ?? null,
        item.chanceBaseline ?? null,
      ],
    );
  }
}

const CASES: SeedCase[] = [
  {
    date: '2026-03-01T10:00:00Z',
    target: '=HYPERLINK("http://evil.test")',
    verdict: 'hit',
    chanceBaseline: 0.25,
  },
  { date: '2026-03-02T10:00:00Z', target: '+1 Water tower', verdict: 'miss', chanceBaseline: 0.25 },
  {
    date: '2026-03-03T10:00:00Z',
    target: '-2 Bridge, "old"',
    verdict: 'hit',
    chanceBaseline: 0.25,
  },
  {
    date: '2026-03-04T10:00:00Z',
    target: '@SUM(A1) church',
    description: 'line one\n=cmd|calc',
  },
  { date: '2026-03-05T10:00:00Z', target: 'Secret bunker', classified: true, verdict: 'hit' },
  {
    type: 'dowsing',
    date: '2026-03-06T10:00:00Z',
    target: 'Well',
    description: 'deep\r=1+1',
    verdict: 'miss',
    chanceBaseline: 0.5,
  },
  { date: '2025-01-01T10:00:00Z', target: 'Out of range' },
];

async function newOrg(): Promise<{ org: TestOrganization; token: string }> {
  const org = await createOrganization(stack, client);
  await seedCases(org, CASES);
  return { org, token: await org.token() };
}

async function generate(token: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return client.post('/v2/reports/generate', { token, json: body });
}

async function completed(token: string, id: string): Promise<ApiResponse> {
  return waitFor(async () => {
    const response = await client.get(`/v2/reports/${id}`, { token });
    expect(response.status).toBe(200);
    expect(response.body.status).not.toBe('failed');
    return response.body.status === 'completed' ? response : null;
  });
}

const RANGE = { date_from: '2026-01-01', date_to: '2026-12-31' };

describe('history reports', () => {
  it('builds a CSV: one row per unclassified case in the range, formulas neutralised', async () => {
    const { token } = await newOrg();
    const asked = await generate(token, { report_type: 'history', format: 'csv', ...RANGE });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ status: 'queued', report_type: 'history', format: 'csv' });
    expect(asked.body.report_id).toMatch(/^rpt_/);
    expect(asked.body.links.download).toBeNull();

    const done = await completed(token, asked.body.report_id);
    expect(done.body.row_count).toBe(5);
    expect(done.body.links.download).toBe(`/v2/reports/${asked.body.report_id}/download`);

    const download = await client.get(done.body.links.download, { token });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="${done.body.filename}"`,
    );
    expect(done.body.filename).toMatch(/^history-report-\d{4}-\d{2}-\d{2}-rpt_.+\.csv$/);
    expect(Buffer.byteLength(download.text)).toBe(done.body.byte_size);
    expect(download.text).toContain('\r\n');

    // A spreadsheet ends a row at any line break outside quotes: each field holding one is quoted.
    expect(download.text).toContain('"line one\n=cmd|calc"');
    expect(download.text).toContain('"deep\r=1+1"');
    const rows = parse(download.text, {
      columns: true,
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as Record<string, string>[];
    expect(rows).toHaveLength(5);
    const targets = rows.map((row) => row.target);
    expect(targets).toEqual([
      'Well',
      "'@SUM(A1) church",
      '\'-2 Bridge, "old"',
      "'+1 Water tower",
      '\'=HYPERLINK("http://evil.test")',
    ]);
    expect(targets).not.toContain('Secret bunker');
    expect(download.text).not.toContain('Secret bunker');
    expect(rows[1]!.description).toBe('line one\n=cmd|calc');
    expect(rows[0]!.description).toBe('deep\r=1+1');
    expect(rows[0]!.case_id).toMatch(/^hist_/);
    expect(rows[0]).toMatchObject({ type: 'dowsing', verdict: 'miss', chance_baseline: '0.5' });
  });

  it('builds JSON: the same cases with counts and hit rates as rate objects', async () => {
    const { token } = await newOrg();
    const asked = await generate(token, {
      report_type: 'history',
      format: 'json',
      ...RANGE,
      type: 'remote_viewing',
    });
    expect(asked.status).toBe(202);
    const done = await completed(token, asked.body.report_id);
    const download = await client.get(done.body.links.download, { token });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^application\/json/);
    const report = download.body;
    expect(report.report_id).toBe(asked.body.report_id);
    expect(report.cases).toHaveLength(4);
    expect(report.cases.map((c: { target: string }) => c.target)).not.toContain('Secret bunker');
    // Raw values in JSON: no spreadsheet prefix.
    expect(report.cases.at(-1).target).toBe('=HYPERLINK("http://evil.test")');
    expect(report.summary.cases).toBe(4);
    // 2 hits of 3 verified, baseline 0.25: Wilson 95 % [0.207660, 0.938507], P(X ≥ 2) = 0.15625.
    expect(report.summary.hit_rate).toEqual({
      value: 0.666667,
      successes: 2,
      n: 3,
      ci_low: expect.closeTo(0.20766, 5),
      ci_high: expect.closeTo(0.938507, 5),
      baseline: 0.25,
      p_value: expect.closeTo(0.15625, 6),
    });
    expect(report.summary.by_type).toEqual([
      expect.objectContaining({ type: 'remote_viewing', cases: 4, verified: 3 }),
    ]);
  });

  it('builds a PDF: title page, figures with intervals, charts and the cases', async () => {
    const { token } = await newOrg();
    const asked = await generate(token, { report_type: 'history', format: 'pdf', ...RANGE });
    expect(asked.status).toBe(202);
    const done = await completed(token, asked.body.report_id);
    expect(done.body.row_count).toBe(5);
    const response = await fetch(`${stack.baseUrl}${done.body.links.download}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="history-report-.+\.pdf"$/,
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(bytes.length).toBe(done.body.byte_size);
    const pdf = await getDocumentProxy(bytes);
    expect(pdf.numPages).toBeGreaterThanOrEqual(5);
    const { text } = await extractText(pdf, { mergePages: false });
    const all = text.join('\n');
    expect(text[0]).toContain('History report');
    expect(text[0]).toContain(asked.body.report_id);
    // 2 hits of 4 verified (remote viewing 2 of 3, dowsing 0 of 1).
    expect(all).toContain('Hit rate: 50.0 % (2 of 4; 95 % CI');
    expect(all).toContain('Hit rate over time');
    expect(all).toContain('Outcomes by type');
    expect(all).toContain('Well');
    expect(all).not.toContain('Secret bunker');
  });

  it('lists, pages and deletes reports', async () => {
    const { token } = await newOrg();
    const ids: string[] = [];
    for (const format of ['csv', 'json', 'csv']) {
      ids.push((await generate(token, { report_type: 'history', format })).body.report_id);
    }
    const first = await client.get('/v2/reports?per_page=2', { token });
    expect(first.status).toBe(200);
    expect(first.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([
      ids[2],
      ids[1],
    ]);
    expect(first.body.pagination).toMatchObject({ total: 3, has_next: true });
    const second = await client.get(
      `/v2/reports?per_page=2&cursor=${first.body.pagination.next_cursor}`,
      { token },
    );
    expect(second.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([ids[0]]);

    expect((await client.delete(`/v2/reports/${ids[1]}`, { token })).status).toBe(204);
    expect((await client.get(`/v2/reports/${ids[1]}`, { token })).status).toBe(404);
    expect((await client.delete(`/v2/reports/${ids[1]}`, { token })).status).toBe(404);
  });

  it('answers 409 on download until the report is completed', async () => {
    const { org, token } = await newOrg();
    const asked = await generate(token, { report_type: 'history', format: 'csv' });
    // The worker is quick: once it is built, the report is put back in `processing`.
    await completed(token, asked.body.report_id);
    await sql.rows(`UPDATE reports SET status = 'processing' WHERE organization_id = $1`, [
      org.organizationId,
    ]);
    const early = await client.get(`/v2/reports/${asked.body.report_id}/download`, { token });
    expect(early.status).toBe(409);
    expect(early.body.error.details.field).toBe('status');
  });

  it('expires reports after the retention: 404 at once, deleted by the sweep', async () => {
    const { org, token } = await newOrg();
    const asked = await generate(token, { report_type: 'history', format: 'json' });
    await completed(token, asked.body.report_id);
    const expiresAt = new Date(asked.body.expires_at).getTime();
    const createdAt = new Date(asked.body.created_at).getTime();
    expect(expiresAt - createdAt).toBe(stack.settings.reportRetentionDays * 24 * 3600 * 1000);

    const [{ oid }] = (await sql.rows<{ oid: number }>(
      `UPDATE reports SET expires_at = now() - interval '1 second' WHERE organization_id = $1
        RETURNING content_oid AS oid`,
      [org.organizationId],
    )) as [{ oid: number }];
    expect(oid).toBeGreaterThan(0);
    expect((await client.get(`/v2/reports/${asked.body.report_id}`, { token })).status).toBe(404);
    expect(
      (await client.get(`/v2/reports/${asked.body.report_id}/download`, { token })).status,
    ).toBe(404);
    expect((await client.get('/v2/reports', { token })).body.data).toEqual([]);

    const swept = await stack.worker!.get(ReportRunner).sweep();
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    // The document's large object went with its row.
    const objects = await sql.rows(`SELECT 1 FROM pg_largeobject_metadata WHERE oid = $1`, [oid]);
    expect(objects).toEqual([]);
    const [stored] = await sql.rows<{ oid: number }>(
      `SELECT content_oid AS oid FROM reports WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(stored).toBeUndefined();
  });
});

describe('report events', () => {
  it('announces report.completed with its size, and report.failed with why', async () => {
    const { org, token } = await newOrg();
    const asked = await generate(token, { report_type: 'history', format: 'csv', ...RANGE });
    const done = await completed(token, asked.body.report_id);
    const events = async (type: string) => {
      const response = await client.get(`/v2/events?type=${type}`, { token });
      expect(response.status).toBe(200);
      return response.body.data as { type: string; data: Record<string, unknown> }[];
    };
    expect(await events('report.completed')).toEqual([
      expect.objectContaining({
        type: 'report.completed',
        data: {
          report_id: asked.body.report_id,
          report_type: 'history',
          format: 'csv',
          status: 'completed',
          row_count: 5,
          byte_size: done.body.byte_size,
          completed_at: done.body.completed_at,
          expires_at: done.body.expires_at,
          sequence: 1,
        },
      }),
    ]);

    // A report whose stored range cannot be read fails in the worker: the event says so. (Built
    // once first, so the worker's own job cannot race the change; run again as a retried job is.)
    const broken = await generate(token, { report_type: 'history', format: 'json' });
    await completed(token, broken.body.report_id);
    const [{ id }] = (await sql.rows<{ id: string }>(
      `UPDATE reports SET status = 'processing',
          parameters = jsonb_set(parameters, '{dateFrom}', '"not a date"')
        WHERE organization_id = $1 AND format = 'json' RETURNING id`,
      [org.organizationId],
    )) as [{ id: string }];
    await stack.worker!.get(ReportRunner).run(id);
    const failed = await client.get(`/v2/reports/${broken.body.report_id}`, { token });
    expect(failed.body).toMatchObject({
      status: 'failed',
      failure: 'the report could not be built',
    });
    expect(await events('report.failed')).toEqual([
      expect.objectContaining({
        data: {
          report_id: broken.body.report_id,
          report_type: 'history',
          format: 'json',
          status: 'failed',
          failure: 'the report could not be built',
          failed_at: failed.body.completed_at,
          sequence: 1,
        },
      }),
    ]);
  });
});

describe('performance and usage reports', () => {
  it('builds the usage report in every format', async () => {
    const { token } = await newOrg();
    const documents: Record<string, ApiResponse> = {};
    for (const format of ['json', 'csv', 'pdf']) {
      const asked = await generate(token, { report_type: 'usage', format, ...RANGE });
      expect(asked.status).toBe(202);
      const done = await completed(token, asked.body.report_id);
      if (format === 'pdf') {
        const response = await fetch(`${stack.baseUrl}${done.body.links.download}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.headers.get('content-type')).toBe('application/pdf');
        const pdf = await getDocumentProxy(new Uint8Array(await response.arrayBuffer()));
        const { text } = await extractText(pdf, { mergePages: true });
        expect(text).toContain('Usage report');
        expect(text).toContain('Finished work per day');
        continue;
      }
      documents[format] = await client.get(done.body.links.download, { token });
    }
    // Five unclassified cases in the range, each on its own day (not the classified one of 5 March).
    expect(documents.json!.body.by_kind).toEqual([
      { kind: 'import', finished: 5, completed: 5, failed: 0 },
    ]);
    const rows = parse(documents.csv!.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((row) => row.day)).toEqual([
      '2026-03-01',
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-06',
    ]);
  });

  it('builds the performance report from the analytics', async () => {
    const { token } = await newOrg();
    const asked = await generate(token, { report_type: 'performance', format: 'json' });
    const done = await completed(token, asked.body.report_id);
    const report = (await client.get(done.body.links.download, { token })).body;
    expect(report.report_type).toBe('performance');
    const rv = report.by_type.find((t: { type: string }) => t.type === 'remote_viewing');
    // Every unclassified case: 2 hits of 3 verified remote-viewing cases.
    expect(rv.hit_rate).toMatchObject({ successes: 2, n: 3, baseline: 0.25 });

    const csv = await generate(token, { report_type: 'performance', format: 'csv' });
    const csvDone = await completed(token, csv.body.report_id);
    const text = (await client.get(csvDone.body.links.download, { token })).text;
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(
      rows.find((row) => row.dimension === 'type' && row.group === 'remote_viewing'),
    ).toMatchObject({
      successes: '2',
      n: '3',
    });

    const pdf = await generate(token, { report_type: 'performance', format: 'pdf' });
    const pdfDone = await completed(token, pdf.body.report_id);
    expect(pdfDone.body.content_type).toBe('application/pdf');
    expect(pdfDone.body.byte_size).toBeGreaterThan(1000);
  });
});

describe('access and input', () => {
  it('needs analytics:export for every route', async () => {
    const { org, token } = await newOrg();
    const id = (await generate(token, { report_type: 'history', format: 'csv' })).body.report_id;
    const reader = await org.token(ALL_SCOPES.filter((scope) => scope !== Scope.AnalyticsExport));
    for (const [method, path] of [
      ['POST', '/v2/reports/generate'],
      ['GET', '/v2/reports'],
      ['GET', `/v2/reports/${id}`],
      ['GET', `/v2/reports/${id}/download`],
      ['DELETE', `/v2/reports/${id}`],
    ] as const) {
      const response = await client.request(method, path, {
        token: reader,
        ...(method === 'POST' ? { json: { report_type: 'history', format: 'csv' } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
  });

  it("keeps organisations and modes apart: another tenant's report is 404", async () => {
    const { token } = await newOrg();
    const other = await newOrg();
    const id = (await generate(token, { report_type: 'history', format: 'csv' })).body.report_id;
    await completed(token, id);
    for (const path of [`/v2/reports/${id}`, `/v2/reports/${id}/download`]) {
      expect((await client.get(path, { token: other.token })).status).toBe(404);
    }
    expect((await client.delete(`/v2/reports/${id}`, { token: other.token })).status).toBe(404);
    expect((await client.get('/v2/reports', { token: other.token })).body.data).toEqual([]);

    const testMode = await createOrganization(stack, client, 'test');
    const testToken = await testMode.token();
    expect((await client.get(`/v2/reports/${id}`, { token: testToken })).status).toBe(404);
    expect((await client.get('/v2/reports/rpt_nonsense', { token })).status).toBe(404);
  });

  it('refuses bad input naming the field', async () => {
    const { token } = await newOrg();
    const cases: [Record<string, unknown>, string][] = [
      [{ format: 'csv' }, 'report_type'],
      [{ report_type: 'sales', format: 'csv' }, 'report_type'],
      [{ report_type: 'history', format: 'xlsx' }, 'format'],
      [{ report_type: 'history', format: 'csv', date_from: 'yesterday' }, 'date_from'],
      [
        { report_type: 'history', format: 'csv', date_from: '2026-02-01', date_to: '2026-01-01' },
        'date_to',
      ],
      [{ report_type: 'history', format: 'csv', type: 'tarot' }, 'type'],
    ];
    for (const [body, field] of cases) {
      const response = await generate(token, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(response.body.error), JSON.stringify(body)).toContain(field);
    }
  });

  it('answers a repeated Idempotency-Key with the same report', async () => {
    const { token } = await newOrg();
    const headers = { 'idempotency-key': randomUUID() };
    const body = { report_type: 'history', format: 'csv' };
    const first = await client.post('/v2/reports/generate', { token, json: body, headers });
    const again = await client.post('/v2/reports/generate', { token, json: body, headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.report_id).toBe(first.body.report_id);
  });
});
