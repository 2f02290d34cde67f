import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient, type ApiResponse } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * POST /v2/history/import: NDJSON and CSV bodies streamed into history cases,
 * every row checked and reported by line, re-imports updating by
 * external_id, all or nothing per import.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

const NDJSON = 'application/x-ndjson';
const CSV = 'text/csv';

async function newOrg(): Promise<{ org: TestOrganization; token: string }> {
  const org = await createOrganization(stack, client);
  return { org, token: await org.token() };
}

function importBody(
  token: string,
  body: string | Buffer,
  contentType: string | undefined,
  query = '',
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return client.post(`/v2/history/import${query}`, {
    token,
    raw: { body, ...(contentType ? { contentType } : {}) },
    headers,
  });
}

function ndjson(...rows: unknown[]): string {
  return rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n');
}

interface StoredCase {
  id: string;
  external_id: string;
  source_type: string;
  source_id: string | null;
  type: string;
  subtype: string | null;
  work_status: string;
  classified: boolean;
  date: Date;
  target: string;
  client: string | null;
  analysts: string[];
  duration_minutes: number | null;
  modality: string | null;
  phases: string[];
  descriptors: string[];
  description: string | null;
  latitude: number | null;
  longitude: number | null;
  confidence_score: number | null;
  outcome: string | null;
  verdict: string | null;
  location_found: boolean | null;
  true_latitude: number | null;
  true_longitude: number | null;
  verification: string | null;
  independent_verification: boolean;
  accuracy_confirmed: boolean;
  verified_by: string | null;
  verified_at: Date | null;
}

/** The organisation's cases in a mode, by external id. */
async function casesOf(org: TestOrganization, mode = 'live'): Promise<Map<string, StoredCase>> {
  const rows = await sql.rows<StoredCase>(
    `SELECT id, external_id, source_type, source_id, type, subtype, work_status, classified, date,
            target, client, analysts, duration_minutes, modality, phases, descriptors, description,
            latitude, longitude, confidence_score, outcome, verdict, location_found, true_latitude,
            true_longitude, verification, independent_verification, accuracy_confirmed,
            verified_by, verified_at
       FROM history_cases WHERE organization_id = $1 AND mode = $2`,
    [org.organizationId, mode],
  );
  return new Map(rows.map((row) => [row.external_id, row]));
}

const REPORT_OK = { failed: 0, errors: [], errors_truncated: false, dry_run: false };

const FULL_ROW = {
  external_id: 'rv-0001',
  type: 'remote_viewing',
  date: '2019-05-14T10:30:00+02:00',
  target: 'Lighthouse at Cape Point',
  outcome: 'Tower on a cliff, as described',
  confidence_score: 0.7,
  location: { latitude: -34.3568, longitude: 18.4974 },
  client: 'Harbour Trust',
  analysts: ['analyst-12', 'analyst-7'],
  process: { duration_minutes: 45, modality: 'crv', phases: ['ideograms', 'sensory'] },
  results: { description: 'Tall white tower above the sea' },
  descriptors: ['tall', 'white', 'water'],
  privacy_level: 'public',
  verdict: 'hit',
  location_found: true,
  coordinates: { latitude: -34.357, longitude: 18.4975 },
  verification: 'Site visit',
  independent_verification: true,
  accuracy_confirmed: true,
  verified_by: 'Field team',
  verified_at: '2019-06-01',
};

describe('importing NDJSON', () => {
  it('stores every row as a completed imported case, with its outcome, readable as a case', async () => {
    const { org, token } = await newOrg();
    const body = ndjson(
      FULL_ROW,
      {
        external_id: 'dw-0042',
        type: 'dowsing',
        date: '2020-08-02',
        target: 'Water source on the north field',
        process: { modality: 'pendulum' },
        privacy_level: 'classified',
        verdict: 'miss',
        verified_by: 'QA',
      },
      { external_id: 'an-0007', type: 'analysis', date: '2021-03-09', target: 'Bridge photo' },
    );
    const response = await importBody(token, `${body}\n`, NDJSON);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ imported: 3, updated: 0, ...REPORT_OK });

    const cases = await casesOf(org);
    expect([...cases.keys()].sort()).toEqual(['an-0007', 'dw-0042', 'rv-0001']);
    expect(cases.get('rv-0001')).toMatchObject({
      source_type: 'import',
      source_id: null,
      type: 'remote_viewing',
      subtype: 'crv',
      work_status: 'completed',
      classified: false,
      date: new Date('2019-05-14T08:30:00Z'),
      target: 'Lighthouse at Cape Point',
      client: 'Harbour Trust',
      analysts: ['analyst-12', 'analyst-7'],
      duration_minutes: 45,
      modality: 'crv',
      phases: ['ideograms', 'sensory'],
      descriptors: ['tall', 'white', 'water'],
      description: 'Tall white tower above the sea',
      latitude: -34.3568,
      longitude: 18.4974,
      confidence_score: 0.7,
      outcome: 'Tower on a cliff, as described',
      verdict: 'hit',
      location_found: true,
      true_latitude: -34.357,
      true_longitude: 18.4975,
      verification: 'Site visit',
      independent_verification: true,
      accuracy_confirmed: true,
      verified_by: 'Field team',
      verified_at: new Date('2019-06-01T00:00:00Z'),
    });
    // A dowsing case's subtype is its query type, which an import does not carry.
    expect(cases.get('dw-0042')).toMatchObject({
      subtype: null,
      modality: 'pendulum',
      classified: true,
      verdict: 'miss',
      verified_at: new Date('2020-08-02T00:00:00Z'),
      independent_verification: false,
    });
    expect(cases.get('an-0007')).toMatchObject({
      verdict: null,
      verified_at: null,
      analysts: [],
      latitude: null,
    });

    const id = toPublicId('history', cases.get('rv-0001')!.id);
    const detail = await client.get(`/v1/history/${id}`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      case_id: id,
      external_id: 'rv-0001',
      target: 'Lighthouse at Cape Point',
      verdict: 'hit',
      source: null,
    });
  });

  it('reports each bad row by its line and field, stores the good ones, ignores blank lines', async () => {
    const { org, token } = await newOrg();
    const good = (external_id: string) => ({
      external_id,
      type: 'dowsing',
      date: '2022-01-01',
      target: 'Well',
    });
    const lines = [
      good('ok-1'), // 1
      '', // 2
      'not json at all', // 3
      '[1, 2]', // 4
      { ...good('bad-type'), type: 'astrology' }, // 5
      { ...good('bad-many'), date: '2999-01-01', location: { latitude: 95, longitude: 0 } }, // 6
      { ...good('bad-unknown'), colour: 'blue' }, // 7
      { ...good('bad-outcome'), location_found: true }, // 8
      { type: 'dowsing', date: '2022-01-01', target: 'No id' }, // 9
      { ...good('bad-verdict'), verdict: 'hit' }, // 10
      '   ', // 11
      { ...good('bad-nested'), process: { duration_minutes: -5, tempo: 'fast' } }, // 12
      good('ok-2'), // 13
    ];
    const response = await importBody(token, ndjson(...lines), NDJSON);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ imported: 2, updated: 0, failed: 9 });
    const errors = response.body.errors as { line: number; field: string; issue: string }[];
    expect(errors.map(({ line, field }) => [line, field])).toEqual([
      [3, 'row'],
      [4, 'row'],
      [5, 'type'],
      [6, 'date'],
      [6, 'location.latitude'],
      [7, 'colour'],
      [8, 'location_found'],
      [9, 'external_id'],
      [10, 'verified_by'],
      [12, 'process.tempo'],
      [12, 'process.duration_minutes'],
    ]);
    expect(errors[0]!.issue).toContain('is not valid JSON');
    expect(errors[3]!.issue).toBe('must not be in the future');
    expect(errors[5]!.issue).toBe('is not a recognised field');
    expect(errors[6]!.issue).toContain('only with a verdict');
    expect([...(await casesOf(org)).keys()].sort()).toEqual(['ok-1', 'ok-2']);
  });

  it('lists at most 1,000 problems and says so, counting every refused row', async () => {
    const { org, token } = await newOrg();
    const bad = Array.from({ length: 600 }, (_, i) => ({
      external_id: `x-${i}`,
      type: 'tarot',
      date: 'someday',
      target: 'T',
    }));
    const response = await importBody(token, ndjson(...bad), NDJSON);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ imported: 0, failed: 600, errors_truncated: true });
    expect(response.body.errors).toHaveLength(1000);
    expect((await casesOf(org)).size).toBe(0);
  });
});

describe('importing CSV', () => {
  it('reads a header and flattened, quoted, listed cells, with a byte order mark and CRLF', async () => {
    const { org, token } = await newOrg();
    const csv = [
      '\ufeffexternal_id,type,date,target,location.latitude,location.longitude,analysts,process.duration_minutes,process.modality,process.phases,results.description,descriptors,privacy_level,verdict,location_found,coordinates.latitude,coordinates.longitude,independent_verification,verified_by,verified_at',
      'rv-1,remote_viewing,2019-05-14T10:30:00Z,"Lighthouse, Cape Point",-34.3568,18.4974,analyst-12; analyst-7,45,crv,ideograms;sensory,"Tall ""white"" tower',
      'above the sea",tall;white,private,hit,TRUE,-34.357,18.4975,false,Field team,2019-06-01',
      '',
      'an-2,analysis,2021-03-09,Bridge photo,,,,,,,,,,,,,,,,',
    ].join('\r\n');
    const response = await importBody(token, csv, 'text/csv; charset=utf-8');
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ imported: 2, updated: 0, ...REPORT_OK });
    const cases = await casesOf(org);
    expect(cases.get('rv-1')).toMatchObject({
      target: 'Lighthouse, Cape Point',
      latitude: -34.3568,
      analysts: ['analyst-12', 'analyst-7'],
      duration_minutes: 45,
      subtype: 'crv',
      phases: ['ideograms', 'sensory'],
      description: 'Tall "white" tower\r\nabove the sea',
      descriptors: ['tall', 'white'],
      classified: false,
      verdict: 'hit',
      location_found: true,
      true_longitude: 18.4975,
      independent_verification: false,
      verified_by: 'Field team',
    });
    expect(cases.get('an-2')).toMatchObject({
      target: 'Bridge photo',
      analysts: [],
      verdict: null,
    });
  });

  it('reports bad records by their line (the header is line 1) and column', async () => {
    const { org, token } = await newOrg();
    const csv = [
      'external_id,type,date,target,confidence_score,location.latitude,location.longitude',
      'a,dowsing,2022-01-01,Well,0.5,10,20', // 2
      'b,dowsing,2022-01-01,Well,high,,', // 3
      'c,dowsing,2022-01-01', // 4
      'd,dowsing,2022-01-01,Well,,10,', // 5
      ',dowsing,2022-01-01,Well,,,', // 6
      'e,dowsing,2022-01-01,Well,1,,', // 7
    ].join('\n');
    const response = await importBody(token, csv, CSV);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ imported: 2, failed: 4 });
    expect(
      response.body.errors.map(({ line, field }: { line: number; field: string }) => [line, field]),
    ).toEqual([
      [3, 'confidence_score'],
      [4, 'row'],
      [5, 'location.longitude'],
      [6, 'external_id'],
    ]);
    expect(response.body.errors[1].issue).toBe('has 3 cells where the header has 7 columns');
    expect([...(await casesOf(org)).keys()].sort()).toEqual(['a', 'e']);
  });

  it('refuses a header it cannot use, naming the column, and stores nothing', async () => {
    const { org, token } = await newOrg();
    const rows = '\na,dowsing,2022-01-01,Well';
    for (const [header, field] of [
      ['external_id,type,date', 'target'],
      ['external_id,type,date,target,colour', 'colour'],
      ['external_id,type,date,target,type', 'type'],
    ]) {
      const response = await importBody(token, `${header}${rows}`, CSV);
      expect(response.status, header).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
    const empty = await importBody(token, '', CSV);
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.field).toBe('header');
    expect((await casesOf(org)).size).toBe(0);
  });
});

describe('re-importing', () => {
  it('updates the case of a known external id instead of adding one, keeping its outcome without a verdict', async () => {
    const { org, token } = await newOrg();
    expect((await importBody(token, ndjson(FULL_ROW), NDJSON)).body).toMatchObject({
      imported: 1,
      updated: 0,
    });
    const before = (await casesOf(org)).get('rv-0001')!;
    const again = await importBody(
      token,
      ndjson({
        external_id: 'rv-0001',
        type: 'remote_viewing',
        date: '2019-05-15',
        target: 'Lighthouse at Cape Point, corrected',
      }),
      NDJSON,
    );
    expect(again.body).toEqual({ imported: 0, updated: 1, ...REPORT_OK });
    const cases = await casesOf(org);
    expect(cases.size).toBe(1);
    expect(cases.get('rv-0001')).toMatchObject({
      id: before.id,
      target: 'Lighthouse at Cape Point, corrected',
      date: new Date('2019-05-15T00:00:00Z'),
      // The work's fields are the row's; absent ones are cleared …
      client: null,
      analysts: [],
      latitude: null,
      // … while the verified outcome stays until a row with a verdict replaces it.
      verdict: 'hit',
      outcome: 'Tower on a cliff, as described',
      true_latitude: -34.357,
      verified_by: 'Field team',
    });

    const verdict = await importBody(
      token,
      ndjson({ ...FULL_ROW, verdict: 'miss', verified_by: 'Auditor', coordinates: undefined }),
      NDJSON,
    );
    expect(verdict.body).toMatchObject({ imported: 0, updated: 1 });
    expect((await casesOf(org)).get('rv-0001')).toMatchObject({
      id: before.id,
      verdict: 'miss',
      verified_by: 'Auditor',
      true_latitude: null,
    });
  });

  it('lets the later row of an external id in one file win, counted as updated', async () => {
    const { org, token } = await newOrg();
    const row = (target: string) => ({
      external_id: 'dup',
      type: 'dowsing',
      date: '2022-01-01',
      target,
    });
    const response = await importBody(
      token,
      ndjson(row('first'), row('second'), { ...row('third'), type: 'bad' }, row('fourth')),
      NDJSON,
    );
    expect(response.body).toMatchObject({ imported: 1, updated: 2, failed: 1 });
    const cases = await casesOf(org);
    expect(cases.size).toBe(1);
    expect(cases.get('dup')!.target).toBe('fourth');
  });
});

describe('dry runs', () => {
  it('give the report the import would give and store nothing', async () => {
    const { org, token } = await newOrg();
    await importBody(token, ndjson(FULL_ROW), NDJSON);
    const body = ndjson(
      { ...FULL_ROW, target: 'Changed' },
      { external_id: 'new', type: 'dowsing', date: '2022-01-01', target: 'New' },
      { external_id: 'bad', type: 'dowsing', date: 'soon', target: 'Bad' },
    );
    const dry = await importBody(token, body, NDJSON, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ imported: 1, updated: 1, failed: 1, dry_run: true });
    const cases = await casesOf(org);
    expect([...cases.keys()]).toEqual(['rv-0001']);
    expect(cases.get('rv-0001')!.target).toBe(FULL_ROW.target);

    const real = await importBody(token, body, NDJSON, '?dry_run=false');
    expect(real.body).toEqual({ ...dry.body, dry_run: false });
    expect((await casesOf(org)).size).toBe(2);

    // The audit trail keeps who imported what: the two real imports, not the dry run.
    const audit = await sql.rows<{ action: string; target_id: string; details: unknown }>(
      `SELECT action, target_id, details FROM audit_events
        WHERE organization_id = $1 AND action = 'history.imported' ORDER BY created_at`,
      [org.organizationId],
    );
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'history.imported',
        details: { format: 'ndjson', imported: 1, updated: 0, failed: 0 },
      }),
      {
        action: 'history.imported',
        target_id: real.headers.get('x-request-id'),
        details: { format: 'ndjson', imported: 1, updated: 1, failed: 1 },
      },
    ]);
  });

  it('refuse a dry_run that is not true or false', async () => {
    const { token } = await newOrg();
    const response = await importBody(token, '', NDJSON, '?dry_run=yes');
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('dry_run');
  });
});

describe('bodies that are not NDJSON or CSV', () => {
  it('answer 415 naming Content-Type for any other media type, charset or encoding', async () => {
    const { org, token } = await newOrg();
    const row = ndjson(FULL_ROW);
    for (const [contentType, headers, field] of [
      ['application/json', {}, 'Content-Type'],
      ['text/plain', {}, 'Content-Type'],
      [undefined, {}, 'Content-Type'],
      ['text/csv; charset=iso-8859-1', {}, 'Content-Type'],
      [NDJSON, { 'content-encoding': 'gzip' }, 'Content-Encoding'],
    ] as const) {
      const response = await importBody(token, row, contentType, '', headers);
      expect(response.status, String(contentType)).toBe(415);
      expect(response.body.error).toMatchObject({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        details: { field },
      });
    }
    expect((await casesOf(org)).size).toBe(0);
  });

  it('refuse binary garbage (not UTF-8) with 400 naming body, and store nothing', async () => {
    const { org, token } = await newOrg();
    const garbage = Buffer.concat([
      Buffer.from(`${ndjson(FULL_ROW)}\n`),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x80, 0x81]),
    ]);
    for (const contentType of [NDJSON, CSV]) {
      const response = await importBody(token, garbage, contentType);
      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { field: 'body' },
      });
      expect(response.body.error.details.issue).toContain('not UTF-8');
    }
    expect((await casesOf(org)).size).toBe(0);
  });

  it('report text that is not NDJSON row by row, and refuse NDJSON sent as CSV', async () => {
    const { org, token } = await newOrg();
    const text = await importBody(token, 'Dear team,\nplease find our records attached.\n', NDJSON);
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({ imported: 0, failed: 2 });
    expect(text.body.errors.map((error: { field: string }) => error.field)).toEqual(['row', 'row']);
    const wrong = await importBody(token, ndjson(FULL_ROW), CSV);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.field).toBe('body');
    expect((await casesOf(org)).size).toBe(0);
  });
});

describe('limits', () => {
  it('refuse more than 100,000 rows with 413 and store none of them', async () => {
    const { org, token } = await newOrg();
    const valid = ndjson(
      ...Array.from({ length: 1500 }, (_, i) => ({
        external_id: `many-${i}`,
        type: 'dowsing',
        date: '2022-01-01',
        target: 'Well',
      })),
    );
    const body = `${valid}\n${'{}\n'.repeat(100_000 - 1500)}{}\n`;
    const response = await importBody(token, body, NDJSON);
    expect(response.status).toBe(413);
    expect(response.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { field: 'body', suggested_value: 100_000 },
    });
    expect((await casesOf(org)).size).toBe(0);
    // Exactly 100,000 rows is within the limit.
    const within = await importBody(token, `${valid}\n${'{}\n'.repeat(100_000 - 1500)}`, NDJSON);
    expect(within.body).toMatchObject({ imported: 1500, failed: 98_500 });
  });

  describe('with HISTORY_IMPORT_MAX_BYTES at 4kb', () => {
    let small: Stack;
    let smallClient: TestClient;

    beforeAll(async () => {
      small = await startStack({ worker: false, env: { HISTORY_IMPORT_MAX_BYTES: '4kb' } });
      smallClient = await TestClient.for(small);
    });
    afterAll(async () => {
      await small?.close();
    });

    const rows = (count: number) =>
      ndjson(
        ...Array.from({ length: count }, (_, i) => ({
          external_id: `size-${i}`,
          type: 'dowsing',
          date: '2022-01-01',
          target: 'A well on the north field',
        })),
      );

    it('refuses a larger body with 413 and stores nothing, declared or streamed', async () => {
      const org = await createOrganization(small, smallClient);
      const token = await org.token();
      const body = rows(100);
      expect(Buffer.byteLength(body)).toBeGreaterThan(4096);
      const declared = await smallClient.post('/v2/history/import', {
        token,
        raw: { body, contentType: NDJSON },
      });
      expect(declared.status).toBe(413);
      expect(declared.body.error.details).toMatchObject({ field: 'body', suggested_value: 4096 });

      // Without a Content-Length the limit is found while reading, after valid rows.
      const encoder = new TextEncoder();
      const streamed = await fetch(`${small.baseUrl}/v2/history/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': NDJSON },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const line of body.split('\n')) controller.enqueue(encoder.encode(`${line}\n`));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe(
        'PAYLOAD_TOO_LARGE',
      );
      expect((await casesOf(org)).size).toBe(0);

      const fits = await smallClient.post('/v2/history/import', {
        token,
        raw: { body: rows(20), contentType: NDJSON },
      });
      expect(fits.body).toMatchObject({ imported: 20 });
    });
  });
});

/** Whether a history import of this organisation and mode holds its lock now. */
async function importRunning(org: TestOrganization, mode = 'live'): Promise<boolean> {
  const [row] = await sql.rows<{ running: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks
        WHERE locktype = 'advisory' AND granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)) AS running`,
    [`history-import:${org.organizationId}:${mode}`],
  );
  return row!.running;
}

/** An import whose body this test writes line by line, and ends or breaks off. */
function openImport(token: string) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const aborter = new AbortController();
  const response = fetch(`${stack.baseUrl}/v2/history/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': NDJSON },
    body: new ReadableStream<Uint8Array>({
      start(streamController) {
        controller = streamController;
      },
    }),
    duplex: 'half',
    signal: aborter.signal,
  } as RequestInit);
  return {
    response,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    abort: () => aborter.abort(),
  };
}

describe('one import at a time, all or nothing', () => {
  it('answers 409 to a second import while the first runs', async () => {
    const { org, token } = await newOrg();
    const first = openImport(token);
    first.write(`${ndjson({ ...FULL_ROW, external_id: 'first' })}\n`);
    await waitFor(async () => ((await importRunning(org)) ? true : null));
    const second = await importBody(token, ndjson(FULL_ROW), NDJSON);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
    expect(second.headers.get('retry-after')).toBe('10');
    first.end();
    const answer = await first.response;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ imported: 1 });
    expect([...(await casesOf(org)).keys()]).toEqual(['first']);
  });

  it('stores nothing of an upload cut off midway, a written batch included', async () => {
    const { org, token } = await newOrg();
    const upload = openImport(token);
    upload.response.catch(() => undefined);
    upload.write(
      `${ndjson(
        ...Array.from({ length: 1500 }, (_, i) => ({
          external_id: `cut-${i}`,
          type: 'dowsing',
          date: '2022-01-01',
          target: 'Well',
        })),
      )}\n`,
    );
    await waitFor(async () => ((await importRunning(org)) ? true : null));
    upload.abort();
    await waitFor(async () => ((await importRunning(org)) ? null : true));
    expect((await casesOf(org)).size).toBe(0);
  });
});

describe('tenancy and access', () => {
  it('keeps external ids per organisation and mode: another one importing the same id touches nothing of ours', async () => {
    const ours = await newOrg();
    const theirs = await newOrg();
    await importBody(ours.token, ndjson(FULL_ROW), NDJSON);
    const before = (await casesOf(ours.org)).get('rv-0001')!;

    const other = await importBody(
      theirs.token,
      ndjson({ ...FULL_ROW, target: 'Their lighthouse' }),
      NDJSON,
    );
    expect(other.body).toMatchObject({ imported: 1, updated: 0 });
    const testKey = await ours.org.apiKey([Scope.AnalyticsAdmin], 'test');
    const sandbox = await client.post('/v2/history/import', {
      apiKey: testKey,
      raw: { body: ndjson({ ...FULL_ROW, target: 'Sandbox lighthouse' }), contentType: NDJSON },
    });
    expect(sandbox.body).toMatchObject({ imported: 1, updated: 0 });

    const after = (await casesOf(ours.org)).get('rv-0001')!;
    expect(after).toEqual(before);
    expect((await casesOf(theirs.org)).get('rv-0001')!.target).toBe('Their lighthouse');
    expect((await casesOf(ours.org, 'test')).get('rv-0001')!.target).toBe('Sandbox lighthouse');
  });

  it('needs analytics:admin (403 without it, 401 without a credential)', async () => {
    const { org } = await newOrg();
    const reader = await org.token([Scope.AnalyticsRead, Scope.AnalyticsExport]);
    const refused = await importBody(reader, ndjson(FULL_ROW), NDJSON);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.required_scopes).toEqual([Scope.AnalyticsAdmin]);
    const anonymous = await client.post('/v2/history/import', {
      raw: { body: ndjson(FULL_ROW), contentType: NDJSON },
    });
    expect(anonymous.status).toBe(401);
    expect((await casesOf(org)).size).toBe(0);

    const admin = await org.apiKey([Scope.AnalyticsAdmin]);
    const allowed = await client.post('/v2/history/import', {
      apiKey: admin,
      raw: { body: ndjson(FULL_ROW), contentType: NDJSON },
    });
    expect(allowed.status).toBe(200);
  });

  it('ignores Idempotency-Key: the same file again updates the same cases', async () => {
    const { org, token } = await newOrg();
    const headers = { 'idempotency-key': 'import-2024-01' };
    const first = await importBody(token, ndjson(FULL_ROW), NDJSON, '', headers);
    expect(first.body).toMatchObject({ imported: 1, updated: 0 });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await importBody(token, ndjson(FULL_ROW), NDJSON, '', headers);
    expect(again.body).toMatchObject({ imported: 0, updated: 1 });
    const other = await importBody(
      token,
      ndjson({ ...FULL_ROW, external_id: 'other' }),
      NDJSON,
      '',
      headers,
    );
    expect(other.status).toBe(200);
    expect((await casesOf(org)).size).toBe(2);
  });
});
