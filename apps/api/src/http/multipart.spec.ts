import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installBodyParsing } from './body-parsing.js';
import { sendError } from './error-translation.js';
import { multipartRequestHash, readMultipartForm } from './multipart.js';
import { multipartUploadLimits, RESULTS_UPLOAD_LIMITS } from './streamed-bodies.js';

/**
 * readMultipartForm and the body parsing around it, on a small Express app
 * with the API's own body parsing and error envelope, fed real multipart
 * bodies built by the platform's FormData and fetch.
 */
const PUBLIC_URL = 'http://127.0.0.1';
let server: Server;
let base: string;

/** A 1×1 PNG (the smallest valid one), built byte by byte. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082',
  'hex',
);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  const app = express();
  installBodyParsing(app, 1024 * 1024, PUBLIC_URL);
  const results = async (request: Request, response: Response, next: NextFunction) => {
    try {
      const limits = multipartUploadLimits(request);
      if (!limits) return void response.json({ json: request.body as unknown });
      const form = await readMultipartForm(request, limits);
      // A second read (the route after the Idempotency-Key interceptor) gets the same form.
      expect(await readMultipartForm(request, limits)).toBe(form);
      response.json({
        fields: Object.fromEntries(form.fields),
        files: form.files.map((file) => ({
          field: file.field,
          filename: file.filename,
          size: file.bytes.length,
          sha256: sha256(file.bytes),
        })),
        hash: multipartRequestHash(form),
      });
    } catch (error) {
      next(error);
    }
  };
  app.post('/v2/sessions/:id/results', results);
  app.post('/v2/analysis/:id/results', results);
  app.post('/v2/dowsing/queries/:id/results', results);
  app.post('/v2/targets', (request, response) => {
    response.json({ json: request.body as unknown });
  });
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) =>
    sendError(error, request, response, PUBLIC_URL),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function post(path: string, body: FormData | string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, { method: 'POST', body, headers });
}

/** The JSON of an answer, loosely typed as tests read it. */
function bodyOf(response: Awaited<ReturnType<typeof fetch>>): Promise<any> {
  return response.json();
}

function submission(files: { bytes: Buffer | string; name: string; type?: string }[]): FormData {
  const form = new FormData();
  form.append('descriptors', 'tall');
  form.append('descriptors', 'metal');
  form.append('notes', 'A tower by a river — ünïcode');
  for (const file of files) {
    form.append('sketches', new Blob([file.bytes], { type: file.type ?? '' }), file.name);
  }
  return form;
}

describe('readMultipartForm', () => {
  it.each([
    '/v2/sessions/sess_1/results',
    '/v2/analysis/anal_1/results',
    '/v2/dowsing/queries/dq_1/results',
  ])('reads the fields and files of %s', async (path) => {
    const response = await post(
      path,
      submission([
        { bytes: PNG, name: 'tower.png', type: 'image/png' },
        { bytes: SVG, name: 'river.svg', type: 'image/svg+xml' },
      ]),
    );
    expect(response.status).toBe(200);
    const body = await bodyOf(response);
    expect(body.fields).toEqual({
      descriptors: ['tall', 'metal'],
      notes: ['A tower by a river — ünïcode'],
    });
    expect(body.files).toEqual([
      { field: 'sketches', filename: 'tower.png', size: PNG.length, sha256: sha256(PNG) },
      {
        field: 'sketches',
        filename: 'river.svg',
        size: Buffer.byteLength(SVG),
        sha256: sha256(Buffer.from(SVG)),
      },
    ]);
  });

  it('leaves out a file input with no file chosen', async () => {
    const form = submission([{ bytes: '', name: '' }]);
    const body = await bodyOf(await post('/v2/sessions/s/results', form));
    expect(body.files).toEqual([]);
  });

  it('still parses JSON on the same routes', async () => {
    const response = await post('/v2/sessions/s/results', JSON.stringify({ descriptors: ['a'] }), {
      'content-type': 'application/json',
    });
    expect(await bodyOf(response)).toEqual({ json: { descriptors: ['a'] } });
  });

  it('hashes a form by its content, not its boundary', async () => {
    const hashOf = async (files: { bytes: Buffer; name: string }[]) =>
      (await bodyOf(await post('/v2/sessions/s/results', submission(files)))).hash as string;
    const first = await hashOf([{ bytes: PNG, name: 'a.png' }]);
    // FormData picks a new random boundary for every body.
    expect(await hashOf([{ bytes: PNG, name: 'a.png' }])).toBe(first);
    expect(await hashOf([{ bytes: Buffer.concat([PNG, Buffer.of(0)]), name: 'a.png' }])).not.toBe(
      first,
    );
    expect(await hashOf([{ bytes: PNG, name: 'b.png' }])).not.toBe(first);
  });
});

describe('limits and faults', () => {
  it('refuses more files than allowed with 413 naming sketches', async () => {
    const files = Array.from({ length: RESULTS_UPLOAD_LIMITS.maxFiles + 1 }, (_, i) => ({
      bytes: PNG,
      name: `${i}.png`,
    }));
    const response = await post('/v2/sessions/s/results', submission(files));
    expect(response.status).toBe(413);
    const { error } = await bodyOf(response);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.details).toMatchObject({ field: 'sketches', issue: 'can hold at most 10 files' });
  });

  it('refuses a file over 5 MiB with 413 naming sketches, and reads the rest off', async () => {
    const big = Buffer.alloc(RESULTS_UPLOAD_LIMITS.maxFileBytes + 1, 0x41);
    const response = await post(
      '/v2/sessions/s/results',
      submission([
        { bytes: big, name: 'big.png' },
        { bytes: PNG, name: 'after.png' },
      ]),
    );
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error.details).toMatchObject({
      field: 'sketches',
      issue: 'has a file larger than 5 MiB',
    });
    // The connection is still usable.
    expect((await post('/v2/sessions/s/results', submission([]))).status).toBe(200);
  });

  it('refuses a field over its limit with 413 naming it', async () => {
    const form = new FormData();
    form.append('notes', 'x'.repeat(RESULTS_UPLOAD_LIMITS.maxFieldBytes + 1));
    const response = await post('/v2/sessions/s/results', form);
    expect(response.status).toBe(413);
    expect((await bodyOf(response)).error.details.field).toBe('notes');
  });

  it.each([
    ['no boundary', 'multipart/form-data', '--x\r\n'],
    [
      'a body cut off mid-part',
      'multipart/form-data; boundary=xyz',
      '--xyz\r\nContent-Disposition: form-data; name="sketches"; filename="a.png"\r\n\r\nabc',
    ],
    ['a part without headers', 'multipart/form-data; boundary=xyz', '--xyz\r\nnonsense'],
  ])(
    'answers 400 (VALIDATION_ERROR, v2 INVALID_REQUEST) for %s',
    async (_name, contentType, body) => {
      const response = await post('/v2/sessions/s/results', body, { 'content-type': contentType });
      expect(response.status).toBe(400);
      const { error } = await bodyOf(response);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.field).toBe('body');
      expect(error.details.issue).toMatch(/^is not well-formed multipart\/form-data/);
    },
  );

  it('refuses a compressed upload', async () => {
    const response = await post('/v2/sessions/s/results', submission([]), {
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(415);
  });
});

describe('other routes', () => {
  it('keep refusing multipart with 415', async () => {
    const response = await post('/v2/targets', submission([{ bytes: PNG, name: 'a.png' }]));
    expect(response.status).toBe(415);
    expect((await bodyOf(response)).error.details.field).toBe('Content-Type');
  });

  it('include GET and other paths under the results routes', () => {
    const request = (method: string, path: string) =>
      ({
        method,
        path,
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      }) as unknown as Request;
    expect(multipartUploadLimits(request('POST', '/v2/sessions/s/results'))).not.toBeNull();
    expect(multipartUploadLimits(request('POST', '/V2/Sessions/s/results/'))).not.toBeNull();
    expect(multipartUploadLimits(request('GET', '/v2/sessions/s/results'))).toBeNull();
    expect(multipartUploadLimits(request('POST', '/v2/sessions/s/merge'))).toBeNull();
    expect(multipartUploadLimits(request('POST', '/v2/sessions/s/results/x'))).toBeNull();
    expect(multipartUploadLimits(request('POST', '/v1/sessions/s/results'))).toBeNull();
  });
});
