import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Test, type TestingModule } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigModule, parseSettings } from '#config';
import { OutboundFetcher } from '#outbound';
import {
  ReferenceMaterialModule,
  ReferenceMaterialReader,
} from '../libs/analyses/src/material/index.js';
import { startFileServer, type FileServer } from './support/file-server.js';
import {
  createTestCertificateAuthority,
  createUntrustedLeafCertificate,
  type TestCertificateAuthority,
} from './support/https-receiver.js';

/**
 * The reference-material reader against a real HTTPS server: the fixtures read
 * as photos and documents, and every fault (refused destinations, redirects,
 * hanging and endless bodies, lying content types) a failed item, never an
 * exception. The server is reached as https://localhost (allowed) while
 * 127.0.0.1 stays refused, as an internal address would be.
 */
const MAX_BYTES = 1024 * 1024;

let ca: TestCertificateAuthority;
let server: FileServer;
let untrusted: FileServer;
let app: TestingModule;
let reader: ReferenceMaterialReader;

const fixture = (name: string) =>
  readFileSync(new URL(`./fixtures/reference-material/${name}`, import.meta.url));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  server = await startFileServer({ certificate: ca.leaf });
  untrusted = await startFileServer({ certificate: await createUntrustedLeafCertificate() });
  const settings = parseSettings({
    DATABASE_URL: 'postgres://127.0.0.1/not-used',
    OUTBOUND_EXTRA_CA_FILE: ca.caFile,
    OUTBOUND_PRIVATE_ALLOWLIST: 'localhost',
    REFERENCE_MATERIAL_MAX_BYTES: String(MAX_BYTES),
    REFERENCE_MATERIAL_TIMEOUT_MS: '2000',
  });
  app = await Test.createTestingModule({
    imports: [ConfigModule.forSettings(settings), ReferenceMaterialModule],
  }).compile();
  await app.init();
  reader = app.get(ReferenceMaterialReader);
});

afterAll(async () => {
  await app?.close();
  await server?.close();
  await untrusted?.close();
  await ca?.cleanup();
});

describe('reading reference material', () => {
  it('reads a JPEG: hash, size, dimensions, capture time and GPS position', async () => {
    const bytes = fixture('photo-gps.jpg');
    const url = server.url('/photo-gps.jpg');
    expect(await reader.read(url, 'photo')).toEqual({
      url,
      kind: 'photo',
      status: 'fetched',
      error: null,
      sha256: sha256(bytes),
      size_bytes: bytes.length,
      content_type: 'image/jpeg',
      width: 64,
      height: 48,
      exif: { captured_at: '2024-05-17T14:32:10.000Z', latitude: -22.9519, longitude: -43.2105 },
    });
  });

  it('applies the offset of a photo that recorded one', async () => {
    const item = await reader.read(server.url('/photo-offset.jpg'), 'photo');
    expect(item.exif).toEqual({
      captured_at: '2024-05-17T12:32:10.000Z',
      latitude: 48.8584,
      longitude: 2.2945,
    });
  });

  it('reads a PNG without EXIF', async () => {
    expect(await reader.read(server.url('/plain.png'), 'photo')).toMatchObject({
      status: 'fetched',
      content_type: 'image/png',
      width: 32,
      height: 16,
      exif: null,
    });
  });

  it('reads a PDF: its two pages and its text', async () => {
    const bytes = fixture('two-pages.pdf');
    expect(await reader.read(server.url('/two-pages.pdf'), 'document')).toEqual({
      url: server.url('/two-pages.pdf'),
      kind: 'document',
      status: 'fetched',
      error: null,
      sha256: sha256(bytes),
      size_bytes: bytes.length,
      content_type: 'application/pdf',
      pages: 2,
      text_excerpt:
        'Page one: the lighthouse at dawn. Granite steps lead down to the water. ' +
        'Page two: a red door on the quay. The end of the reference document.',
    });
  });

  it('reads a text document', async () => {
    expect(await reader.read(server.url('/notes.txt'), 'document')).toMatchObject({
      status: 'fetched',
      content_type: 'text/plain',
      pages: 1,
      text_excerpt:
        'Field notes — café on the corner. The target is a tall structure near water. Second line.',
    });
  });

  it('follows a redirect on the same terms', async () => {
    expect(await reader.read(server.url('/redirect/to-fixture'), 'photo')).toMatchObject({
      url: server.url('/redirect/to-fixture'),
      status: 'fetched',
      width: 64,
    });
    const fetched = await app
      .get(OutboundFetcher, { strict: false })
      .fetch(server.url('/redirect/to-fixture'), { maxBytes: MAX_BYTES, timeoutMs: 2000 });
    expect(fetched).toMatchObject({
      ok: true,
      finalUrl: server.url('/photo-gps.jpg'),
      status: 200,
      declaredType: 'image/jpeg',
    });
  });
});

describe('faults become failed items', () => {
  /** A failed item of `kind` that received nothing: no hash, size, type or facts. */
  function unfetched(kind: 'photo' | 'document', error: string | RegExp) {
    return {
      kind,
      status: 'failed',
      error: typeof error === 'string' ? error : expect.stringMatching(error),
      sha256: null,
      size_bytes: null,
      content_type: null,
      ...(kind === 'photo'
        ? { width: null, height: null, exif: null }
        : { pages: null, text_excerpt: null }),
    };
  }

  it('a "JPEG" that is an HTML page, naming both types', async () => {
    const item = await reader.read(server.url('/html-as-jpeg'), 'photo');
    expect(item).toMatchObject({
      status: 'failed',
      error: 'the content is text/html (declared image/jpeg), not an image',
      content_type: 'text/html',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      width: null,
      height: null,
      exif: null,
    });
  });

  it('a photo that is a PDF, a document that is a photo', async () => {
    expect(await reader.read(server.url('/two-pages.pdf'), 'photo')).toMatchObject({
      status: 'failed',
      error: 'the content is application/pdf, not an image',
    });
    expect(await reader.read(server.url('/photo-gps.jpg'), 'document')).toMatchObject({
      status: 'failed',
      error: 'the content is image/jpeg, not a PDF or a text document',
    });
  });

  it('a corrupt PDF', async () => {
    expect(await reader.read(server.url('/corrupt.pdf'), 'document')).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^the PDF could not be read: .+/),
      content_type: 'application/pdf',
      size_bytes: 400,
    });
  });

  it('a 404', async () => {
    expect(await reader.read(server.url('/nothing-here.jpg'), 'photo')).toMatchObject(
      unfetched('photo', 'HTTP 404'),
    );
  });

  it('a server that sends its headers and then nothing', async () => {
    expect(await reader.read(server.url('/hang'), 'photo')).toMatchObject(
      unfetched('photo', 'no complete answer within 2 s'),
    );
  });

  it('a server that trickles a byte at a time, for ever', async () => {
    expect(await reader.read(server.url('/trickle'), 'document')).toMatchObject(
      unfetched('document', 'no complete answer within 2 s'),
    );
  });

  it('a body larger than REFERENCE_MATERIAL_MAX_BYTES, declared or not', async () => {
    const tooLarge = `larger than ${MAX_BYTES} bytes`;
    expect(await reader.read(server.url('/endless'), 'document')).toMatchObject(
      unfetched('document', tooLarge),
    );
    expect(await reader.read(server.url('/endless-chunked'), 'document')).toMatchObject(
      unfetched('document', tooLarge),
    );
  });

  it('a redirect to a refused address, which is never connected to', async () => {
    expect(await reader.read(server.url('/redirect/to-loopback'), 'photo')).toMatchObject(
      unfetched('photo', 'the destination is not allowed: only public addresses may be reached'),
    );
    expect(server.requests.some((path) => path.includes('via=loopback'))).toBe(false);
  });

  it('a redirect to http://', async () => {
    expect(await reader.read(server.url('/redirect/to-http'), 'photo')).toMatchObject(
      unfetched('photo', 'redirect refused: the location must use https://'),
    );
  });

  it('more than 3 redirects', async () => {
    const before = server.requests.length;
    expect(await reader.read(server.url('/redirect/chain/0'), 'photo')).toMatchObject(
      unfetched('photo', 'too many redirects'),
    );
    expect(server.requests.slice(before)).toEqual([
      '/redirect/chain/0',
      '/redirect/chain/1',
      '/redirect/chain/2',
      '/redirect/chain/3',
    ]);
  });

  it('an address literal that is not allowed, and a URL that is not https://', async () => {
    expect(
      await reader.read(`https://127.0.0.1:${server.port}/photo-gps.jpg`, 'photo'),
    ).toMatchObject(unfetched('photo', /^the destination is not allowed/));
    expect(
      await reader.read(`http://localhost:${server.port}/notes.txt`, 'document'),
    ).toMatchObject(unfetched('document', 'the URL must use https://'));
  });

  it('a certificate from a CA nobody trusts', async () => {
    expect(await reader.read(untrusted.url('/photo-gps.jpg'), 'photo')).toMatchObject(
      unfetched('photo', /^TLS failure: /),
    );
  });

  it('a fetch the caller cancels', async () => {
    const controller = new AbortController();
    const reading = reader.read(server.url('/hang'), 'photo', controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await reading).toMatchObject(unfetched('photo', 'the fetch was cancelled'));
  });
});
