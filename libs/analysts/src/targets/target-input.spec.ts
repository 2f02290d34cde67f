import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '#common';
import { checkNewTarget, normaliseDescriptors } from './target-input.js';
import { readTargetPhoto } from './target-photo-reading.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/reference-material/${name}`, import.meta.url));

function refusal(work: () => unknown): { field: unknown; issue: unknown } {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { field: (error as AppError).details.field, issue: (error as AppError).details.issue };
  }
  throw new Error('not refused');
}

describe('normaliseDescriptors', () => {
  it('trims, lower-cases and keeps each once, in the order first given', () => {
    expect(normaliseDescriptors([' Tall', 'METAL ', 'tall', 'Lattice', 'metal'])).toEqual([
      'tall',
      'metal',
      'lattice',
    ]);
  });

  it('names the descriptor at fault', () => {
    expect(refusal(() => normaliseDescriptors(['a', ' ']))).toEqual({
      field: 'descriptors.1',
      issue: 'must not be blank',
    });
    expect(refusal(() => normaliseDescriptors(['a', 'b', 'x'.repeat(65)])).field).toBe(
      'descriptors.2',
    );
    expect(refusal(() => normaliseDescriptors([3])).field).toBe('descriptors.0');
    expect(refusal(() => normaliseDescriptors(Array(51).fill('a'))).field).toBe('descriptors');
  });
});

describe('checkNewTarget', () => {
  it('keeps the description, coordinates and https photo URLs', () => {
    expect(
      checkNewTarget({
        description: 'A tower',
        coordinates: { latitude: 1, longitude: 2 },
        photos: ['https://example.com/a.png'],
      }),
    ).toEqual({
      description: 'A tower',
      descriptors: [],
      coordinates: { latitude: 1, longitude: 2 },
      photoUrls: ['https://example.com/a.png'],
    });
  });

  it.each([
    [{}, 'description'],
    [{ description: ' ' }, 'description'],
    [{ description: 'x'.repeat(2001) }, 'description'],
    [{ description: 'x', photos: ['ftp://example.com/a.png'] }, 'photos.0'],
    [{ description: 'x', photos: ['https://example.com/a.png#top'] }, 'photos.0'],
    [{ description: 'x', photos: ['https://example.com/a', 'https://u@example.com/'] }, 'photos.1'],
    [{ description: 'x', photos: Array(6).fill('https://example.com/a.png') }, 'photos'],
  ])('refuses %j naming %s', (input, field) => {
    expect(refusal(() => checkNewTarget(input)).field).toBe(field);
  });
});

describe('readTargetPhoto', () => {
  it('measures a PNG and a JPEG, typed by their bytes whatever the server claimed', async () => {
    expect(await readTargetPhoto(fixture('plain.png'), 'application/octet-stream')).toMatchObject({
      status: 'fetched',
      contentType: 'image/png',
      width: 32,
      height: 16,
      failure: null,
    });
    expect(await readTargetPhoto(fixture('photo-gps.jpg'), null)).toMatchObject({
      status: 'fetched',
      contentType: 'image/jpeg',
      width: 64,
      height: 48,
    });
  });

  it('fails anything else, saying what it is, and keeps no bytes', async () => {
    expect(await readTargetPhoto(Buffer.from('<html><body>hi</body></html>'), 'image/png')).toEqual(
      {
        status: 'failed',
        contentType: null,
        width: null,
        height: null,
        bytes: null,
        failure:
          'the content is text/html (declared image/png), not a PNG, JPEG, WebP or GIF image',
      },
    );
    expect((await readTargetPhoto(fixture('two-pages.pdf'), 'image/jpeg')).failure).toBe(
      'the content is application/pdf (declared image/jpeg), not a PNG, JPEG, WebP or GIF image',
    );
    expect((await readTargetPhoto(Buffer.alloc(0), 'image/png')).failure).toBe(
      'the body is empty, not an image',
    );
    // A PNG signature with nothing after it: the type is right, the image unreadable.
    const truncated = fixture('plain.png').subarray(0, 12);
    expect((await readTargetPhoto(truncated, 'image/png')).status).toBe('failed');
  });
});
