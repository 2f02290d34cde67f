import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMaterial, unfetchedItem } from './material-reading.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/reference-material/${name}`, import.meta.url));
const URL_ = 'https://example.com/item';
const HTML = Buffer.from('<!DOCTYPE html>\n<html><body>Please sign in</body></html>\n');

describe('readMaterial', () => {
  it('describes a photo: hash, size, sniffed type, dimensions and EXIF', async () => {
    const bytes = fixture('photo-gps.jpg');
    expect(await readMaterial(URL_, 'photo', bytes, 'application/octet-stream')).toEqual({
      url: URL_,
      kind: 'photo',
      status: 'fetched',
      error: null,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size_bytes: bytes.length,
      content_type: 'image/jpeg',
      width: 64,
      height: 48,
      exif: { captured_at: '2024-05-17T14:32:10.000Z', latitude: -22.9519, longitude: -43.2105 },
    });
  });

  it('describes a document: pages and excerpt', async () => {
    const item = await readMaterial(URL_, 'document', fixture('two-pages.pdf'), null);
    expect(item).toMatchObject({
      status: 'fetched',
      error: null,
      content_type: 'application/pdf',
      pages: 2,
      text_excerpt: expect.stringMatching(
        /^Page one: the lighthouse at dawn\..*reference document\.$/,
      ),
    });
  });

  it('names both types when a "JPEG" is HTML, and keeps what was received', async () => {
    const item = await readMaterial(URL_, 'photo', HTML, 'image/jpeg');
    expect(item).toEqual({
      url: URL_,
      kind: 'photo',
      status: 'failed',
      error: 'the content is text/html (declared image/jpeg), not an image',
      sha256: createHash('sha256').update(HTML).digest('hex'),
      size_bytes: HTML.length,
      content_type: 'text/html',
      width: null,
      height: null,
      exif: null,
    });
  });

  it.each([
    ['photo', 'two-pages.pdf', 'application/pdf', 'the content is application/pdf, not an image'],
    ['photo', 'notes.txt', null, 'the content is text/plain, not an image'],
    [
      'document',
      'photo-gps.jpg',
      'application/pdf',
      'the content is image/jpeg (declared application/pdf), not a PDF or a text document',
    ],
  ] as const)('fails a %s that is %s', async (kind, name, declared, error) => {
    const item = await readMaterial(URL_, kind, fixture(name), declared);
    expect(item).toMatchObject({ status: 'failed', error });
  });

  it('fails a document that is HTML, or nothing it recognises', async () => {
    expect(await readMaterial(URL_, 'document', HTML, 'text/html')).toMatchObject({
      status: 'failed',
      error: 'the content is text/html, not a PDF or a text document',
      pages: null,
      text_excerpt: null,
    });
    const noise = Buffer.from([0x00, 0x9f, 0x13, 0x37, 0xfe, 0x01, 0x02]);
    expect(await readMaterial(URL_, 'document', noise, 'application/pdf')).toMatchObject({
      status: 'failed',
      content_type: null,
      error:
        'the content is of no type we recognise (declared application/pdf), not a PDF or a text document',
    });
  });

  it('fails an image of a type it does not read', async () => {
    const psd = Buffer.concat([Buffer.from('8BPS\u0000\u0001', 'latin1'), Buffer.alloc(64)]);
    expect(await readMaterial(URL_, 'photo', psd, null)).toMatchObject({
      status: 'failed',
      content_type: 'image/vnd.adobe.photoshop',
      error: expect.stringMatching(/^the content is image\/vnd.adobe.photoshop, an image type/),
    });
  });

  it('fails a corrupt PDF with the reason, without throwing', async () => {
    const truncated = fixture('two-pages.pdf').subarray(0, 400);
    expect(await readMaterial(URL_, 'document', truncated, 'application/pdf')).toMatchObject({
      status: 'failed',
      content_type: 'application/pdf',
      error: expect.stringMatching(/^the PDF could not be read: .+/),
      size_bytes: 400,
      pages: null,
    });
  });

  it('fails a damaged image with the reason', async () => {
    const header = fixture('plain.png').subarray(0, 20); // the signature, no IHDR
    expect(await readMaterial(URL_, 'photo', header, 'image/png')).toMatchObject({
      status: 'failed',
      content_type: 'image/png',
      error: expect.stringMatching(/^the image could not be read: /),
    });
  });

  it('keeps Markdown and CSV names for documents that are text', async () => {
    const markdown = Buffer.from('# Notes\n\n* the   quay\n');
    expect(await readMaterial(URL_, 'document', markdown, 'text/markdown')).toMatchObject({
      status: 'fetched',
      content_type: 'text/markdown',
      pages: 1,
      text_excerpt: '# Notes * the quay',
    });
  });
});

describe('unfetchedItem', () => {
  it('has no hash, size or type, and the kind’s facts as null', () => {
    expect(unfetchedItem(URL_, 'document', 'HTTP 404')).toEqual({
      url: URL_,
      kind: 'document',
      status: 'failed',
      error: 'HTTP 404',
      sha256: null,
      size_bytes: null,
      content_type: null,
      pages: null,
      text_excerpt: null,
    });
  });
});
