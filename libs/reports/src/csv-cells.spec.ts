import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { csvOptions, neutralizeCell } from './csv-cells.js';

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

describe('csvOptions', () => {
  const columns = ['target', 'description'];

  it.each(['line\n=cmd|calc', 'line\r=cmd|calc', 'line\r\n=cmd|calc'])(
    'quotes a field with a line break (%j), so it reads back as one row',
    (text) => {
      const csv = stringify(
        [[neutralizeCell('=tower'), neutralizeCell(text)]],
        csvOptions(columns),
      );
      expect(csv).toBe(`target,description\r\n'=tower,"${text}"\r\n`);
      expect(parse(csv, { columns: true })).toEqual([{ target: "'=tower", description: text }]);
    },
  );

  it('leaves other fields unquoted', () => {
    expect(stringify([['plain', true]], csvOptions(columns))).toBe(
      'target,description\r\nplain,true\r\n',
    );
  });
});
