import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  mediaTypeEssence,
  refineContentType,
  sniffContentType,
  sniffText,
} from './content-sniffing.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/reference-material/${name}`, import.meta.url));
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('sniffContentType', () => {
  it.each([
    ['photo-gps.jpg', 'image/jpeg'],
    ['plain.png', 'image/png'],
    ['two-pages.pdf', 'application/pdf'],
    ['notes.txt', 'text/plain'],
  ])('reads %s as %s from its bytes', async (name, type) => {
    expect(await sniffContentType(fixture(name))).toBe(type);
  });

  it('knows nothing of empty or unrecognisable bytes', async () => {
    expect(await sniffContentType(new Uint8Array())).toBeNull();
    expect(await sniffContentType(new Uint8Array([0, 1, 2, 3, 250, 251, 252]))).toBeNull();
  });
});

describe('sniffText', () => {
  it.each([
    ['<!DOCTYPE html><html><body>Sign in</body></html>', 'text/html'],
    ['\n  <html lang="en">', 'text/html'],
    ['<HEAD>', 'text/html'],
    ['<p>hello</p>', 'text/html'],
    ['<!-- a comment -->', 'text/html'],
    ['<?xml version="1.0"?><root/>', 'text/xml'],
    ['plain words, <b>not</b> at the start', 'text/plain'],
    ['<pre-formatted>', 'text/plain'],
    ['Ünïcödé text ✓ 🚀', 'text/plain'],
    ['\ufeffwith a byte-order mark', 'text/plain'],
    ['a,b,c\n1,2,3\n', 'text/plain'],
  ])('reads %j as %s', (text, type) => {
    expect(sniffText(utf8(text))).toBe(type);
  });

  it('refuses bytes that are not UTF-8 text', () => {
    expect(sniffText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toBeNull(); // Latin-1 "café"
    expect(sniffText(utf8('text with a NUL\u0000 byte'))).toBeNull();
    expect(sniffText(utf8('bell\u0007'))).toBeNull();
  });
});

describe('refineContentType', () => {
  it('keeps Markdown and CSV names for bytes that are plain text', () => {
    expect(refineContentType('text/plain', 'text/markdown; charset=utf-8')).toBe('text/markdown');
    expect(refineContentType('text/plain', 'Text/CSV')).toBe('text/csv');
  });

  it('never lets the declared type change what the bytes are', () => {
    expect(refineContentType('text/html', 'text/markdown')).toBe('text/html');
    expect(refineContentType('text/plain', 'image/jpeg')).toBe('text/plain');
    expect(refineContentType(null, 'application/pdf')).toBeNull();
  });
});

describe('mediaTypeEssence', () => {
  it('drops parameters and case', () => {
    expect(mediaTypeEssence('Image/JPEG ; q=1')).toBe('image/jpeg');
    expect(mediaTypeEssence('')).toBeNull();
    expect(mediaTypeEssence(null)).toBeNull();
  });
});
