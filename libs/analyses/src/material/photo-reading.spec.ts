import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { capturedAt, readExif, readPhoto } from './photo-reading.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/reference-material/${name}`, import.meta.url));

describe('readPhoto', () => {
  it('reads the dimensions, capture time and signed GPS position of a JPEG', async () => {
    expect(await readPhoto(fixture('photo-gps.jpg'))).toEqual({
      width: 64,
      height: 48,
      exif: { captured_at: '2024-05-17T14:32:10.000Z', latitude: -22.9519, longitude: -43.2105 },
    });
  });

  it('applies OffsetTimeOriginal when the camera recorded one', async () => {
    expect(await readPhoto(fixture('photo-offset.jpg'))).toEqual({
      width: 40,
      height: 30,
      exif: { captured_at: '2024-05-17T12:32:10.000Z', latitude: 48.8584, longitude: 2.2945 },
    });
  });

  it('gives exif null for a photo without EXIF', async () => {
    expect(await readPhoto(fixture('plain.png'))).toEqual({ width: 32, height: 16, exif: null });
  });

  it('throws for bytes it cannot measure', async () => {
    await expect(readPhoto(fixture('notes.txt'))).rejects.toThrow();
  });
});

describe('readExif', () => {
  it('is null, not an error, for bytes that carry no EXIF', async () => {
    expect(await readExif(fixture('two-pages.pdf'))).toBeNull();
    expect(await readExif(new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0, 8, 0x45, 0x78]))).toBeNull();
  });
});

describe('capturedAt', () => {
  it('reads the EXIF date as UTC when no offset was recorded', () => {
    expect(capturedAt('2024:05:17 14:32:10')).toBe('2024-05-17T14:32:10.000Z');
  });

  it.each([
    ['+02:00', '2024-05-17T12:32:10.000Z'],
    ['-05:30', '2024-05-17T20:02:10.000Z'],
    ['+00:00', '2024-05-17T14:32:10.000Z'],
    ['   :  ', '2024-05-17T14:32:10.000Z'], // blank, as some cameras write it: ignored
    ['+25:00', '2024-05-17T14:32:10.000Z'],
  ])('applies the offset %j', (offset, iso) => {
    expect(capturedAt('2024:05:17 14:32:10', offset)).toBe(iso);
  });

  it('crosses the date line with the offset', () => {
    expect(capturedAt('2024:01:01 01:00:00', '+09:00')).toBe('2023-12-31T16:00:00.000Z');
  });

  it.each([
    [undefined],
    [42],
    [''],
    ['0000:00:00 00:00:00'],
    ['2024:02:30 10:00:00'],
    ['2024:13:01 10:00:00'],
    ['2024:05:17 24:00:00'],
    ['17/05/2024 14:32'],
  ])('is null for %j', (value) => {
    expect(capturedAt(value)).toBeNull();
  });
});
