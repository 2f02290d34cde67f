import { describe, expect, it } from 'vitest';
import { neutralizeCell } from './csv-cells.js';

describe('neutralizeCell', () => {
  it.each(['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx'])('prefixes %j with a quote', (text) => {
    expect(neutralizeCell(text)).toBe(`'${text}`);
  });

  it('leaves other text, numbers, booleans and nulls alone', () => {
    expect(neutralizeCell('plain = text')).toBe('plain = text');
    expect(neutralizeCell(-2)).toBe(-2);
    expect(neutralizeCell(true)).toBe(true);
    expect(neutralizeCell(null)).toBeNull();
  });

  it('joins arrays and checks the joined text', () => {
    expect(neutralizeCell(['=a', 'b'])).toBe("'=a; b");
    expect(neutralizeCell(new Date('2026-01-02T00:00:00Z'))).toBe('2026-01-02T00:00:00.000Z');
  });
});
