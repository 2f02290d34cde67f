import { describe, expect, it } from 'vitest';
import { EXCERPT_LENGTH, textExcerpt } from './text-excerpt.js';

describe('textExcerpt', () => {
  it('collapses every run of whitespace to one space and trims', () => {
    expect(textExcerpt('  one\n\n two\t\tthree \r\n')).toBe('one two three');
  });

  it(`keeps at most ${EXCERPT_LENGTH} characters, counted as code points`, () => {
    expect(textExcerpt('a'.repeat(5000))).toHaveLength(EXCERPT_LENGTH);
    const emoji = textExcerpt('🚀'.repeat(3000));
    expect(Array.from(emoji)).toHaveLength(EXCERPT_LENGTH);
    expect(emoji.isWellFormed()).toBe(true);
    expect(textExcerpt('abcdef', 3)).toBe('abc');
  });

  it('counts what is kept after collapsing', () => {
    expect(textExcerpt(`${' '.repeat(10_000)}word`)).toBe('word');
    expect(Array.from(textExcerpt('a  '.repeat(3000)))).toHaveLength(EXCERPT_LENGTH);
  });

  it('drops control characters and repairs unpaired surrogates (PostgreSQL could not store them)', () => {
    expect(textExcerpt('a\u0000b\u0007c\u007fd')).toBe('a b c d');
    expect(textExcerpt('x\ud800y')).toBe('x\ufffdy');
  });

  it('is empty for no text', () => {
    expect(textExcerpt('')).toBe('');
    expect(textExcerpt(' \n ')).toBe('');
  });
});
