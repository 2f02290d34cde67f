import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend } from 'openapi-backend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { Contract } from './support/contract.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

// ajv-formats is CommonJS with a default export; under ESM the function sits on `.default`.
const addFormats = (addFormatsModule as unknown as { default: (ajv: never) => void }).default;

let stack: Stack;
let client: TestClient;

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
});
afterAll(() => stack?.close());

interface Box {
  south: number;
  west: number;
  north: number;
  east: number;
}

interface Reading {
  latitude: number;
  longitude: number;
  confidence: number;
}

interface Cell {
  row: number;
  column: number;
  bounds: Box;
  count: number;
  mean_confidence: number;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6 + 0;

async function newOrg(): Promise<{ org: TestOrganization; token: string }> {
  const org = await createOrganization(stack, client);
  return { org, token: await org.token() };
}

function ask(path: string, body: Record<string, unknown>, token: string) {
  return client.post(`/v1/dowsing/${path}`, { token, json: body });
}

function heatmap(body: Record<string, unknown>, token: string) {
  return client.post('/v2/dowsing/heatmap', { token, json: body });
}

/** The readings an energy map stores: one per cell at its centre, its calibrated confidence. */
async function energyMap(
  box: Box,
  rows: number,
  columns: number,
  token: string,
): Promise<Reading[]> {
  const response = await ask('energy-map', { bounds: box, grid: { rows, columns } }, token);
  expect(response.status, response.text).toBe(201);
  const result = response.body.result;
  const n = result.chart_data.readings.length as number;
  const k = rows * columns;
  const span = box.east > box.west ? box.east - box.west : box.east - box.west + 360;
  const readings: Reading[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const count = Math.round(result.variant_result.grid.cells[r][c] * n);
      let longitude = box.west + ((c + 0.5) * span) / columns;
      if (longitude > 180) longitude -= 360;
      readings.push({
        latitude: round6(box.north - ((r + 0.5) * (box.north - box.south)) / rows),
        longitude: round6(longitude),
        confidence: round6((count + 2 / k) / (n + 2)),
      });
    }
  }
  return readings;
}

/** The readings a multi-point query stores: one per point, its share as confidence. */
async function multiPoint(
  points: { latitude: number; longitude: number }[],
  token: string,
): Promise<Reading[]> {
  const response = await ask(
    'multi-point',
    { points: points.map((p, i) => ({ name: `point ${i}`, ...p })) },
    token,
  );
  expect(response.status, response.text).toBe(201);
  return (response.body.result.variant_result.points as (Reading & { name: string })[]).map(
    ({ latitude, longitude, confidence }) => ({ latitude, longitude, confidence }),
  );
}

function inside(reading: { latitude: number; longitude: number }, box: Box): boolean {
  const latitude = reading.latitude >= box.south && reading.latitude <= box.north;
  return (
    latitude &&
    (box.east > box.west
      ? reading.longitude >= box.west && reading.longitude <= box.east
      : reading.longitude >= box.west || reading.longitude <= box.east)
  );
}

/**
 * Every known reading in the box lies in exactly one listed cell, each cell's
 * count and mean confidence are those of the readings in it, and no cell is
 * listed without readings.
 */
function expectCellsToHold(cells: Cell[], readings: Reading[], box: Box): void {
  const held = readings.filter((r) => inside(r, box));
  for (const reading of held) {
    const holders = cells.filter((cell) => inside(reading, cell.bounds));
    expect(holders, `cells holding ${JSON.stringify(reading)}`).toHaveLength(1);
  }
  for (const cell of cells) {
    const mine = held.filter((r) => inside(r, cell.bounds));
    expect(cell.count, JSON.stringify(cell)).toBe(mine.length);
    const mean = mine.reduce((sum, r) => sum + r.confidence, 0) / mine.length;
    // Both means of 6-decimal confidences, rounded to 6 decimals on the server.
    expect(Math.abs(cell.mean_confidence - mean)).toBeLessThanOrEqual(1e-6);
  }
  expect(cells.reduce((sum, cell) => sum + cell.count, 0)).toBe(held.length);
}

/** The GeoJSON answer, checked against the document's application/geo+json schema. */
async function geoJson(body: Record<string, unknown>, token: string): Promise<any> {
  const response = await fetch(`${stack.baseUrl}/v2/dowsing/heatmap`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/geo+json',
    },
    body: JSON.stringify(body),
  });
  const json: any = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/geo\+json/);
  expect(response.headers.get('vary')).toMatch(/accept/i);
  const validation = (await geoJsonContract()).validateResponse(json, 'geoJsonHeatmap', 200);
  expect(validation.errors ?? [], 'the GeoJSON matches its documented schema').toEqual([]);
  return json;
}

/**
 * test/support/contract.ts checks every JSON-ish body against the operation's
 * `application/json` schema (openapi-backend validates that media type only),
 * so the GeoJSON answer is checked here against the document's
 * `application/geo+json` schema, by the same validator.
 */
let geoBackend: Promise<OpenAPIBackend> | undefined;
function geoJsonContract(): Promise<OpenAPIBackend> {
  geoBackend ??= (async () => {
    const { document } = await Contract.load(stack.baseUrl);
    const operation = structuredClone(document.paths['/v2/dowsing/heatmap']!.post!) as any;
    const content = operation.responses['200'].content;
    expect(Object.keys(content).sort()).toEqual(['application/geo+json', 'application/json']);
    operation.operationId = 'geoJsonHeatmap';
    operation.responses = {
      '200': {
        ...operation.responses['200'],
        content: { 'application/json': content['application/geo+json'] },
      },
    };
    const backend = new OpenAPIBackend({
      definition: { ...document, paths: { '/v2/dowsing/heatmap': { post: operation } } } as never,
      customizeAjv: (ajv) => {
        addFormats(ajv as never);
        return ajv;
      },
    });
    await backend.init();
    return backend;
  })();
  return geoBackend;
}

describe('POST /v2/dowsing/heatmap from stored readings', () => {
  it('counts the readings of energy maps and multi-point queries in the box, and none outside it, of another organisation or of the other mode', async () => {
    const { org, token } = await newOrg();
    const mapBox = { south: 10.0, west: 20.0, north: 10.02, east: 20.04 };
    const readings = [
      ...(await energyMap(mapBox, 4, 8, token)),
      ...(await multiPoint(
        [
          { latitude: 10.0111, longitude: 20.0133 },
          { latitude: 10.0112, longitude: 20.0134 },
          { latitude: 10.05, longitude: 20.02 },
          { latitude: 9.99, longitude: 20.02 },
          { latitude: 10.01, longitude: 20.5 },
        ],
        token,
      )),
    ];
    // Readings of another organisation and of the test mode, in the same places.
    const other = await newOrg();
    await energyMap(mapBox, 4, 8, other.token);
    const testKey = await org.apiKey(undefined, 'test');
    const sandbox = await client.post('/v1/dowsing/multi-point', {
      apiKey: testKey,
      json: {
        points: [
          { name: 'a', latitude: 10.0111, longitude: 20.0133 },
          { name: 'b', latitude: 10.025, longitude: 20.025 },
        ],
      },
    });
    expect(sandbox.status).toBe(201);

    const box = { south: 10.004, west: 20.006, north: 10.03, east: 20.03 };
    const response = await heatmap({ bounds: box, cell_size_meters: 600 }, token);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const held = readings.filter((r) => inside(r, box));
    expect(held.length).toBeGreaterThan(10);
    expect(held.length).toBeLessThan(readings.length - 3);
    expect(response.body).toMatchObject({
      source: 'stored',
      bounds: box,
      level: 16, // tiles of 305 m: the coarsest no taller than 600 m
      cell_size_meters: { north_south: 305.41 },
      total_readings: held.length,
    });
    expect(response.body.query).toBeUndefined();
    expect(response.body.grid.cells).toBe(response.body.grid.rows * response.body.grid.columns);
    expectCellsToHold(response.body.cells, readings, box);
    // North to south, then west to east; every cell inside the box.
    const order = response.body.cells.map((c: Cell) => c.row * 10_000 + c.column);
    expect(order).toEqual([...order].sort((a: number, b: number) => a - b));
    for (const cell of response.body.cells as Cell[]) {
      expect(cell.bounds.south).toBeGreaterThanOrEqual(box.south);
      expect(cell.bounds.north).toBeLessThanOrEqual(box.north);
      expect(cell.bounds.west).toBeGreaterThanOrEqual(box.west);
      expect(cell.bounds.east).toBeLessThanOrEqual(box.east);
    }

    // The sandbox sees its own readings only.
    const inSandbox = await client.post('/v2/dowsing/heatmap', {
      apiKey: testKey,
      json: { bounds: box, cell_size_meters: 600 },
    });
    expect(inSandbox.status).toBe(200);
    expect(inSandbox.body.total_readings).toBe(2);

    // A deleted query's readings leave the heatmap with it.
    const listed = await client.get('/v2/dowsing/queries?variant=multi_point', { token });
    const deleted = await client.delete(`/v1/dowsing/queries/${listed.body.data[0].query_id}`, {
      token,
    });
    expect(deleted.status).toBe(204);
    const after = await heatmap({ bounds: box, cell_size_meters: 600 }, token);
    const mapOnly = readings.slice(0, 32);
    expect(after.body.total_readings).toBe(mapOnly.filter((r) => inside(r, box)).length);
    expectCellsToHold(after.body.cells, mapOnly, box);
  });

  it('answers GeoJSON when asked: a FeatureCollection of Polygon cells with the JSON answer’s figures', async () => {
    const { token } = await newOrg();
    const readings = await energyMap(
      { south: -33.9, west: 151.1, north: -33.8, east: 151.3 },
      5,
      5,
      token,
    );
    const body = {
      bounds: { south: -33.88, west: 151.12, north: -33.81, east: 151.27 },
      cell_size_meters: 3000,
    };
    const json = await heatmap(body, token);
    expect(json.status).toBe(200);
    expectCellsToHold(json.body.cells, readings, body.bounds);
    const geo = await geoJson(body, token);
    expect(geo.type).toBe('FeatureCollection');
    expect(geo.bbox).toEqual([151.12, -33.88, 151.27, -33.81]);
    const { cells, ...summary } = json.body;
    expect(geo.heatmap).toEqual(summary);
    expect(geo.features).toHaveLength(cells.length);
    geo.features.forEach((feature: any, i: number) => {
      const cell: Cell = cells[i];
      expect(feature.type).toBe('Feature');
      expect(feature.properties).toEqual({
        row: cell.row,
        column: cell.column,
        count: cell.count,
        mean_confidence: cell.mean_confidence,
      });
      const { south, west, north, east } = cell.bounds;
      expect(feature.geometry).toEqual({
        type: 'Polygon',
        coordinates: [
          [
            [west, south],
            [east, south],
            [east, north],
            [west, north],
            [west, south],
          ],
        ],
      });
    });
  });

  it('counts across the antimeridian when east < west, in cells on both sides', async () => {
    const { token } = await newOrg();
    const readings = await multiPoint(
      [
        { latitude: -17.5, longitude: 179.95 },
        { latitude: -17.4, longitude: -179.95 },
        { latitude: -17.6, longitude: -179.97 },
        { latitude: -17.5, longitude: 178.0 },
        { latitude: -17.5, longitude: -178.5 },
        { latitude: -16.5, longitude: 179.95 },
      ],
      token,
    );
    const box = { south: -18, west: 179.9, north: -17, east: -179.9 };
    const response = await heatmap({ bounds: box, cell_size_meters: 5000 }, token);
    expect(response.status, response.text).toBe(200);
    expect(response.body.total_readings).toBe(3);
    expectCellsToHold(response.body.cells, readings, box);
    const sides = (response.body.cells as Cell[]).map((cell) => Math.sign(cell.bounds.west));
    expect(new Set(sides)).toEqual(new Set([1, -1]));
    // Columns run west to east across the line: those west of it first.
    const west = (response.body.cells as Cell[]).find((c) => c.bounds.west > 0)!;
    const east = (response.body.cells as Cell[]).find((c) => c.bounds.west < 0)!;
    expect(west.column).toBeLessThan(east.column);
    const geo = await geoJson({ bounds: box, cell_size_meters: 5000 }, token);
    expect(geo.bbox).toEqual([179.9, -18, -179.9, -17]);
    expect(geo.features).toHaveLength(response.body.cells.length);
  });

  it('refuses more than 10,000 cells naming cell_size_meters, with a size that fits', async () => {
    const { token } = await newOrg();
    const bounds = { south: 0, west: 0, north: 10, east: 10 };
    const refused = await heatmap({ bounds, cell_size_meters: 1000 }, token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { field: 'cell_size_meters', suggested_value: expect.any(Number) },
      help_url: expect.stringContaining('/docs/errors#validation_error'),
    });
    expect(refused.body.error.details.issue).toMatch(/at most 10,000/);
    const suggested = refused.body.error.details.suggested_value as number;
    const fits = await heatmap({ bounds, cell_size_meters: suggested }, token);
    expect(fits.status, fits.text).toBe(200);
    expect(fits.body.grid.cells).toBeLessThanOrEqual(10_000);
    // It is the finest size that fits: half of it does not.
    const finer = await heatmap({ bounds, cell_size_meters: suggested / 2 }, token);
    expect(finer.status).toBe(400);
  });

  it('names the field of bad input', async () => {
    const { token } = await newOrg();
    const bounds = { south: 1, west: 1, north: 1.1, east: 1.1 };
    const cases: [Record<string, unknown>, string, unknown][] = [
      [{ bounds: { ...bounds, north: 1 }, cell_size_meters: 100 }, 'bounds.north', null],
      [{ bounds: { ...bounds, east: 1 }, cell_size_meters: 100 }, 'bounds.east', null],
      [{ bounds: { ...bounds, south: -91 }, cell_size_meters: 100 }, 'bounds.south', -90],
      [{ bounds, cell_size_meters: 0 }, 'cell_size_meters', 1],
      [{ bounds, cell_size_meters: '100' }, 'cell_size_meters', undefined],
      [{ bounds }, 'cell_size_meters', undefined],
      [{ bounds, cell_size_meters: 100, source: 'scna' }, 'source', 'scan'],
      [{ bounds, cell_size_meters: 100, question: 'Where?' }, 'question', null],
      [{ bounds, cell_size_meters: 100, zoom: 3 }, 'zoom', null],
      [{ cell_size_meters: 100 }, 'bounds', null],
    ];
    for (const [body, field, suggested] of cases) {
      const response = await heatmap(body, token);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error, JSON.stringify(body)).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { field, ...(suggested !== undefined && { suggested_value: suggested }) },
      });
    }
  });
});

describe('POST /v2/dowsing/heatmap with source scan', () => {
  it('stores and announces a fresh energy map over the tiles the box meets, one reading per tile', async () => {
    const { org, token } = await newOrg();
    const bounds = { south: 48.85, west: 2.33, north: 48.86, east: 2.35 };
    const scan = await heatmap({ bounds, cell_size_meters: 400, source: 'scan' }, token);
    expect(scan.status, scan.text).toBe(200);
    const { grid, query } = scan.body;
    expect(scan.body.source).toBe('scan');
    expect(query).toEqual({ query_id: expect.stringMatching(/^dowse_/), status: 'completed' });
    // Every tile met is read once: the scanned box is the tiles' union, around the box asked.
    expect(scan.body.total_readings).toBe(grid.cells);
    expect(scan.body.cells).toHaveLength(grid.cells);
    expect(scan.body.cells.every((cell: Cell) => cell.count === 1)).toBe(true);
    expect(scan.body.bounds.south).toBeLessThanOrEqual(bounds.south);
    expect(scan.body.bounds.north).toBeGreaterThanOrEqual(bounds.north);
    expect(scan.body.bounds.west).toBeLessThanOrEqual(bounds.west);
    expect(scan.body.bounds.east).toBeGreaterThanOrEqual(bounds.east);

    const stored = await client.get(`/v2/dowsing/queries/${query.query_id}`, { token });
    expect(stored.body).toMatchObject({
      variant: 'energy_map',
      status: 'completed',
      question: 'Where in this area is the energy strongest?',
    });
    expect(stored.body.result.variant_result.grid).toMatchObject({
      rows: grid.rows,
      columns: grid.columns,
    });
    // Its readings are stored: the stored heatmap of the scanned box says the same.
    const again = await heatmap({ bounds: scan.body.bounds, cell_size_meters: 400 }, token);
    expect(again.body.cells).toEqual(scan.body.cells);
    // And announced like any query.
    const events = await waitFor(async () => {
      const page = await client.get('/v2/events?per_page=100', { token });
      const mine = page.body.data.filter(
        (event: { data: { query_id?: string } }) => event.data.query_id === query.query_id,
      );
      return mine.length === 2 ? mine : null;
    });
    expect(events.map((e: { type: string }) => e.type).sort()).toEqual([
      'dowsing.query_completed',
      'dowsing.query_created',
    ]);

    // A scan writes: a token that may only read is refused.
    const reader = await org.token(['dowsing:read']);
    const refused = await heatmap({ bounds, cell_size_meters: 400, source: 'scan' }, reader);
    expect(refused.status).toBe(403);
    const readOnly = await heatmap({ bounds, cell_size_meters: 400 }, reader);
    expect(readOnly.status).toBe(200);
  });

  it('refuses a scan larger than an energy map (100 × 100) or of one tile, with a size that fits', async () => {
    const { token } = await newOrg();
    const bounds = { south: 40, west: 10, north: 41, east: 11 };
    const big = await heatmap({ bounds, cell_size_meters: 600, source: 'scan' }, token);
    expect(big.status).toBe(400);
    expect(big.body.error.details).toMatchObject({
      field: 'cell_size_meters',
      suggested_value: expect.any(Number),
    });
    const fits = await heatmap(
      { bounds, cell_size_meters: big.body.error.details.suggested_value, source: 'scan' },
      token,
    );
    expect(fits.status, fits.text).toBe(200);
    const one = await heatmap(
      {
        bounds: { south: 40.1, west: 10.1, north: 40.2, east: 10.2 },
        cell_size_meters: 1_000_000,
        source: 'scan',
      },
      token,
    );
    expect(one.status).toBe(400);
    expect(one.body.error.details).toMatchObject({
      field: 'cell_size_meters',
      suggested_value: expect.any(Number),
    });
  });
});

describe('GET /v2/dowsing/temporal-analysis', () => {
  const DAY = 86_400_000;

  /** Moves a query (and its readings) `days` back in time. */
  async function backdate(queryId: string, days: number): Promise<void> {
    const uuid = parsePublicId('dowsing', queryId);
    const sql = stack.api.get(Sql);
    await sql.rows(
      `UPDATE dowsing_queries SET created_at = created_at - make_interval(days => $2),
              completed_at = completed_at - make_interval(days => $2) WHERE id = $1`,
      [uuid, days],
    );
    await sql.rows(
      'UPDATE dowsing_readings SET created_at = created_at - make_interval(days => $2) WHERE query_id = $1',
      [uuid, days],
    );
  }

  function temporal(query: Record<string, string | number>, token: string) {
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    );
    return client.get(`/v2/dowsing/temporal-analysis?${search}`, { token });
  }

  const dayOf = (ms: number) => new Date(Math.floor(ms / DAY) * DAY).toISOString();

  it('buckets the queries asking a question (ignoring case) per day, with trends and a warning when they say little', async () => {
    const { token } = await newOrg();
    const question = 'Is there water under the old mill?';
    const asked: {
      id: string;
      daysAgo: number;
      confidence: number;
      baseline: number;
      p: number;
    }[] = [];
    const plan = [
      [question, 0],
      [question.toUpperCase(), 0],
      [question, 1],
      [question.toLowerCase(), 3],
      [question, 3],
      [question, 3],
      ['Is there water under the new mill?', 3],
    ] as const;
    for (const [text, daysAgo] of plan) {
      const created = await ask('query', { query_type: 'yes_no', question: text }, token);
      expect(created.status).toBe(201);
      if (daysAgo > 0) await backdate(created.body.query_id, daysAgo);
      const read = await client.get(`/v2/dowsing/queries/${created.body.query_id}`, { token });
      if (text.toLowerCase() === question.toLowerCase()) {
        asked.push({
          id: created.body.query_id,
          daysAgo,
          confidence: read.body.result.confidence,
          baseline: read.body.result.baseline,
          p: read.body.result.statistical_significance.p_value,
        });
      }
    }
    const now = Date.now();
    const response = await temporal(
      {
        interval: 'day',
        question: question.toUpperCase(),
        date_from: new Date(now - 5 * DAY).toISOString(),
        date_to: new Date(now).toISOString(),
      },
      token,
    );
    expect(response.status, response.text).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      interval: 'day',
      window: { from: dayOf(now - 5 * DAY), to: dayOf(now + DAY) },
      filters: { question: question.toUpperCase(), area: null, query_type: null },
      total_queries: 6,
    });
    expect(body.buckets).toHaveLength(6);
    body.buckets.forEach((bucket: any, i: number) => {
      const daysAgo = 5 - i;
      expect(bucket.start).toBe(dayOf(now - daysAgo * DAY));
      expect(bucket.complete).toBe(daysAgo > 0);
      const mine = asked.filter((q) => q.daysAgo === daysAgo);
      expect(bucket.count).toBe(mine.length);
      if (mine.length === 0) {
        expect(bucket).toMatchObject({
          mean_confidence: null,
          mean_baseline: null,
          significant_share: null,
        });
      } else {
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        // Means rounded to 6 decimals on the server.
        const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-6);
        near(bucket.mean_confidence, mean(mine.map((q) => q.confidence)));
        near(bucket.mean_baseline, mean(mine.map((q) => q.baseline)));
        expect(bucket.significant_share).toMatchObject({
          successes: mine.filter((q) => q.p < 0.05).length,
          n: mine.length,
          baseline: 0.05,
        });
      }
    });
    // Five complete days (two with queries): a count trend, exact; three days with queries:
    // a confidence trend that cannot reach significance — and a warning saying so.
    expect(body.trend.count).toMatchObject({ method: 'mann_kendall', n: 5, exact: true, z: null });
    expect(body.trend.excess_confidence).toMatchObject({ n: 3, exact: true, direction: 'none' });
    expect(body.warning).toMatch(/confidence trend needs at least 5/);
    expect(body.warning).toMatch(/fewer than 5/);
  });

  it('selects by area (a reading within the circle), by question and area together, and by query type', async () => {
    const { token } = await newOrg();
    const question = 'Where is the spring?';
    const near = await ask(
      'multi-point',
      {
        question,
        points: [
          { name: 'a', latitude: 46.001, longitude: 7.001 },
          { name: 'b', latitude: 46.5, longitude: 7.5 },
        ],
      },
      token,
    );
    const far = await ask(
      'multi-point',
      {
        question,
        points: [
          { name: 'a', latitude: 46.2, longitude: 7.2 },
          { name: 'b', latitude: 46.5, longitude: 7.5 },
        ],
      },
      token,
    );
    const other = await ask(
      'energy-map',
      {
        bounds: { south: 45.99, west: 6.99, north: 46.01, east: 7.01 },
        grid: { rows: 2, columns: 2 },
      },
      token,
    );
    for (const r of [near, far, other]) expect(r.status).toBe(201);
    const window = {
      interval: 'week',
      date_from: new Date(Date.now() - 10 * DAY).toISOString(),
      date_to: new Date().toISOString(),
    };
    const area = { latitude: 46, longitude: 7, radius_meters: 2000 };
    const byArea = await temporal({ ...window, ...area }, token);
    expect(byArea.status, byArea.text).toBe(200);
    expect(byArea.body.total_queries).toBe(2); // near and the energy map, not far
    expect(byArea.body.filters.area).toEqual(area);
    const both = await temporal({ ...window, ...area, question: question.toLowerCase() }, token);
    expect(both.body.total_queries).toBe(1);
    const typed = await temporal({ ...window, ...area, query_type: 'yes_no' }, token);
    expect(typed.body.total_queries).toBe(0);
    expect(typed.body.warning).toMatch(/No completed query matched/);
    expect(typed.body.trend.excess_confidence).toBeNull();
  });

  it('names the parameter of bad input, with a suggested value where one exists', async () => {
    const { token } = await newOrg();
    const from = '2026-01-01';
    const to = '2026-03-01';
    const cases: [Record<string, string | number>, string, unknown][] = [
      [{ interval: 'day', date_from: from, date_to: to }, 'question', null],
      [{ interval: 'dya', question: 'x', date_from: from, date_to: to }, 'interval', 'day'],
      [
        { interval: 'day', question: 'x', date_from: to, date_to: from },
        'date_to',
        '2026-03-01T00:00:00.000Z',
      ],
      [
        { interval: 'day', question: 'x', date_from: '2020-01-01', date_to: to },
        'interval',
        'week',
      ],
      [
        { interval: 'week', question: 'x', date_from: '1950-01-01', date_to: to },
        'interval',
        'month',
      ],
      [
        { interval: 'month', question: 'x', date_from: '1800-01-01', date_to: to },
        'date_from',
        '1942-12-01T00:00:00.000Z',
      ],
      [{ interval: 'day', latitude: 46, date_from: from, date_to: to }, 'longitude', null],
      [
        { interval: 'day', latitude: 46, longitude: 7, date_from: from, date_to: to },
        'radius_meters',
        null,
      ],
      [{ interval: 'day', question: 'x', date_from: 'yesterday', date_to: to }, 'date_from', null],
      [{ interval: 'day', question: 'x', date_from: from }, 'date_to', null],
      [
        {
          interval: 'day',
          question: 'x',
          latitude: 91,
          longitude: 0,
          radius_meters: 5,
          date_from: from,
          date_to: to,
        },
        'latitude',
        90,
      ],
      [
        { interval: 'day', question: 'x', query_type: 'maybe', date_from: from, date_to: to },
        'query_type',
        expect.any(String),
      ],
    ];
    for (const [query, field, suggested] of cases) {
      const response = await temporal(query, token);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error, JSON.stringify(query)).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { field, suggested_value: suggested },
      });
    }
  });

  it('finds readings at the smallest coordinates a double holds, without a 500', async () => {
    const { token } = await newOrg();
    const created = await ask(
      'multi-point',
      {
        question: 'Which of these is wettest?',
        points: [
          { name: 'tiny', latitude: 5e-324, longitude: -2.5e-323 },
          { name: 'zero', latitude: 0, longitude: 0 },
        ],
      },
      token,
    );
    expect(created.status).toBe(201);
    const now = Date.now();
    const response = await temporal(
      {
        interval: 'day',
        latitude: 0,
        longitude: 0,
        radius_meters: 10,
        date_from: new Date(now - DAY).toISOString(),
        date_to: new Date(now + DAY).toISOString(),
      },
      token,
    );
    expect(response.status, response.text).toBe(200);
    expect(response.body.total_queries).toBe(1);
  });
});
