import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetPool } from '#analysts';
import { parsePublicId, Scope } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startFileServer, type FileServer } from './support/file-server.js';
import {
  createTestCertificateAuthority,
  type TestCertificateAuthority,
} from './support/https-receiver.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The target pool (/v2/targets): photos fetched from a real HTTPS server
 * (reached as https://localhost, allowed; 127.0.0.1 stays refused as an
 * internal address would be), typed by their bytes and served back as
 * stored; validation naming the field; tenants kept apart; and the small read
 * API judging draws decoys through.
 */
let stack: Stack;
let client: TestClient;
let ca: TestCertificateAuthority;
let files: FileServer;
let org: TestOrganization;
let token: string;

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/reference-material/${name}`, import.meta.url));

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  files = await startFileServer({ certificate: ca.leaf });
  stack = await startStack({
    worker: false,
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

function create(body: Record<string, unknown>, credential = token) {
  return client.post('/v2/targets', { token: credential, json: body });
}

async function photoBytes(url: string, credential = token) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${credential}` } });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('POST /v2/targets', () => {
  it('stores the target, fetches each photo safely and types it by its bytes', async () => {
    const created = await create({
      description: 'A wrought-iron lattice tower beside a river',
      descriptors: ['  Tall ', 'METAL', 'tall', 'lattice', 'Metal'],
      coordinates: { latitude: 48.8584, longitude: 2.2945 },
      photos: [
        files.url('/plain.png'),
        files.url('/photo-gps.jpg'),
        files.url('/html-as-jpeg'),
        files.url('/missing.png'),
        `https://127.0.0.1:${files.port}/plain.png`,
      ],
    });
    expect(created.status, created.text).toBe(201);
    const target = created.body;
    expect(target).toMatchObject({
      target_id: expect.stringMatching(/^tgt_[0-9a-z]{26}$/),
      description: 'A wrought-iron lattice tower beside a river',
      descriptors: ['tall', 'metal', 'lattice'],
      coordinates: { latitude: 48.8584, longitude: 2.2945 },
      created_at: expect.any(String),
    });
    const [png, jpeg, html, missing, loopback] = target.photos;
    const servedAt = (photo: { photo_id: string }) =>
      `${stack.baseUrl}/v2/targets/${target.target_id}/photos/${photo.photo_id}`;
    expect(png).toEqual({
      photo_id: expect.stringMatching(/^photo_[0-9a-z]{26}$/),
      source_url: files.url('/plain.png'),
      status: 'fetched',
      content_type: 'image/png',
      width: 32,
      height: 16,
      url: servedAt(png),
      failure: null,
    });
    expect(jpeg).toMatchObject({
      status: 'fetched',
      content_type: 'image/jpeg',
      width: 64,
      height: 48,
      url: servedAt(jpeg),
      failure: null,
    });
    // A sign-in page declared image/jpeg: the bytes say HTML, and nothing of it is kept.
    expect(html).toMatchObject({
      source_url: files.url('/html-as-jpeg'),
      status: 'failed',
      content_type: null,
      width: null,
      height: null,
      url: null,
      failure: 'the content is text/html (declared image/jpeg), not a PNG, JPEG, WebP or GIF image',
    });
    expect(missing).toMatchObject({ status: 'failed', failure: 'HTTP 404', url: null });
    expect(loopback).toMatchObject({
      status: 'failed',
      failure: expect.stringMatching(/^the destination is not allowed/),
    });

    // Read back as created, and listed.
    const read = await client.get(`/v2/targets/${target.target_id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(target);

    // The stored bytes are served exactly, with the sniffed type and headers that keep them inert.
    for (const [photo, name] of [
      [png, 'plain.png'],
      [jpeg, 'photo-gps.jpg'],
    ] as const) {
      const { response, bytes } = await photoBytes(photo.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(photo.content_type);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(response.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
      expect(bytes.equals(fixture(name))).toBe(true);
    }
    // Through the contract-checking client too (documented status and media type).
    expect((await client.get(new URL(png.url).pathname, { token })).status).toBe(200);
    // A failed photo has nothing stored.
    const failed = await client.get(`/v2/targets/${target.target_id}/photos/${html.photo_id}`, {
      token,
    });
    expect(failed.status).toBe(404);
  });

  it('takes a description alone: no descriptors, coordinates or photos', async () => {
    const created = await create({ description: 'A brass bell' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ descriptors: [], coordinates: null, photos: [] });
  });

  it.each([
    [{}, 'description'],
    [{ description: '' }, 'description'],
    [{ description: '   ' }, 'description'],
    [{ description: 'x'.repeat(2001) }, 'description'],
    [{ description: 'x', descriptors: 'tall' }, 'descriptors'],
    [{ description: 'x', descriptors: ['ok', 'x'.repeat(65)] }, 'descriptors'],
    [{ description: 'x', descriptors: ['ok', '  '] }, 'descriptors.1'],
    [
      { description: 'x', descriptors: Array.from({ length: 51 }, (_, i) => `w${i}`) },
      'descriptors',
    ],
    [{ description: 'x', coordinates: { latitude: 91, longitude: 0 } }, 'coordinates.latitude'],
    [{ description: 'x', photos: ['http://example.com/a.png'] }, 'photos.0'],
    [{ description: 'x', photos: ['https://example.com/a.png', 'not a url'] }, 'photos.1'],
    [{ description: 'x', photos: ['https://u:p@example.com/a.png'] }, 'photos.0'],
    [
      { description: 'x', photos: Array.from({ length: 6 }, () => 'https://example.com/a.png') },
      'photos',
    ],
    [{ description: 'x', colour: 'red' }, 'colour'],
  ])('refuses %j naming %s', async (body, field) => {
    const refused = await create(body);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.details.field).toBe(field);
  });
});

describe('GET /v2/targets', () => {
  it('lists the tenant’s targets newest first, page by page', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.push((await create({ description: `Target ${n}` }, ownToken)).body.target_id);
    }
    const first = await client.get('/v2/targets?per_page=2', { token: ownToken });
    expect(first.status).toBe(200);
    expect(first.body.data.map((t: { target_id: string }) => t.target_id)).toEqual([
      ids[2],
      ids[1],
    ]);
    expect(first.body.pagination).toMatchObject({ total: 3, has_next: true, page: 1 });
    const second = await client.get(
      `/v2/targets?per_page=2&cursor=${first.body.pagination.next_cursor}`,
      { token: ownToken },
    );
    expect(second.body.data.map((t: { target_id: string }) => t.target_id)).toEqual([ids[0]]);
    expect(second.body.pagination).toMatchObject({ has_next: false, page: 2, next_cursor: null });
  });
});

describe('tenants and scopes', () => {
  it('keeps organisations and modes apart, and needs the organizations scopes', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const created = await create(
      { description: 'Kept to its tenant', photos: [files.url('/plain.png')] },
      ownToken,
    );
    const id = created.body.target_id;
    const photo = created.body.photos[0];
    const photoPath = `/v2/targets/${id}/photos/${photo.photo_id}`;

    const other = await createOrganization(stack, client);
    const otherToken = await other.token();
    const testKey = await own.apiKey(undefined, 'test');
    for (const credential of [otherToken, testKey]) {
      expect((await client.get(`/v2/targets/${id}`, { token: credential })).status).toBe(404);
      expect((await client.get(photoPath, { token: credential })).status).toBe(404);
      expect((await client.delete(`/v2/targets/${id}`, { token: credential })).status).toBe(404);
      const listed = await client.get('/v2/targets', { token: credential });
      expect(listed.body.data.map((t: { target_id: string }) => t.target_id)).not.toContain(id);
    }

    const reader = await own.token([Scope.OrganizationsRead]);
    expect((await client.get(`/v2/targets/${id}`, { token: reader })).status).toBe(200);
    expect((await client.get(photoPath, { token: reader })).status).toBe(200);
    expect((await create({ description: 'x' }, reader)).status).toBe(403);
    expect((await client.delete(`/v2/targets/${id}`, { token: reader })).status).toBe(403);
    const viewer = await own.token([Scope.SessionsRead]);
    expect((await client.get(`/v2/targets/${id}`, { token: viewer })).status).toBe(403);

    expect((await client.delete(`/v2/targets/${id}`, { token: ownToken })).status).toBe(204);
    expect((await client.get(`/v2/targets/${id}`, { token: ownToken })).status).toBe(404);
    expect((await client.get(photoPath, { token: ownToken })).status).toBe(404);
    expect((await client.delete(`/v2/targets/${id}`, { token: ownToken })).status).toBe(404);
  });
});

describe('TargetPool (what judging draws from)', () => {
  it('draws decoys from the tenant’s pool only, never the excluded target, never twice', async () => {
    const own = await createOrganization(stack, client);
    const ownToken = await own.token();
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const created = await create(
        {
          description: `Pool ${n}`,
          descriptors: [`word${n}`],
          ...(n === 1 ? { photos: [files.url('/plain.png'), files.url('/missing.png')] } : {}),
        },
        ownToken,
      );
      ids.push(parsePublicId('target', created.body.target_id)!);
    }
    const other = await createOrganization(stack, client);
    await create({ description: 'Another tenant’s' }, await other.token());

    const pool = stack.api.get(TargetPool);
    const sql = stack.api.get(Sql);
    const tenant = { organizationId: own.organizationId, mode: 'live' as const };
    expect(await pool.count(tenant, null)).toBe(4);
    expect(await pool.count(tenant, ids[0]!)).toBe(3);
    expect(await pool.count({ ...tenant, mode: 'test' }, null)).toBe(0);

    for (let round = 0; round < 5; round++) {
      const drawn = await pool.drawDecoys(sql, tenant, 2, ids[0]!);
      expect(drawn).toHaveLength(2);
      expect(new Set(drawn.map((t) => t.id)).size).toBe(2);
      for (const decoy of drawn) expect(ids.slice(1)).toContain(decoy.id);
    }
    // Asking for more than there are gives them all; inside a transaction too.
    const all = await sql.transaction((tx) => pool.drawDecoys(tx, tenant, 10, null));
    expect(all.map((t) => t.id).sort()).toEqual([...ids].sort());

    const first = await pool.get(tenant, ids[0]!);
    expect(first).toEqual({
      id: ids[0],
      description: 'Pool 1',
      descriptors: ['word1'],
      latitude: null,
      longitude: null,
      photos: [
        { id: expect.any(String), status: 'fetched', contentType: 'image/png' },
        { id: expect.any(String), status: 'failed', contentType: null },
      ],
    });
    expect(await pool.get({ ...tenant, mode: 'test' }, ids[0]!)).toBeNull();
    expect(await pool.get(tenant, 'not-a-uuid')).toBeNull();
    const content = await pool.photo(tenant, first!.photos[0]!.id);
    expect(content?.contentType).toBe('image/png');
    expect(content?.bytes.equals(fixture('plain.png'))).toBe(true);
    expect(await pool.photo(tenant, first!.photos[1]!.id)).toBeNull();
    expect(await pool.photo({ ...tenant, mode: 'test' }, first!.photos[0]!.id)).toBeNull();
  });
});
