import { describe, expect, it } from 'vitest';
import { rowMapping } from './row-mapping.js';

interface Thing {
  id: string;
  name: string;
  details: { a: number } | null;
}

const THING = rowMapping<Thing, string>('things', { id: 'id', name: 'name', details: 'details' }, [
  'details',
]);

describe('rowMapping', () => {
  it('maps a row both ways, writing JSON columns as JSON', () => {
    const thing: Thing = { id: 'a', name: 'first', details: { a: 1 } };
    expect(THING.insert).toContain('INSERT INTO things (id, name, details)');
    expect(THING.toRow(thing)).toEqual(['a', 'first', '{"a":1}']);
    expect(THING.fromRow({ id: 'a', name: 'first', details: { a: 1 } })).toEqual(thing);
  });

  it('keeps some of the columns in the same order, with their JSON columns', () => {
    const some = THING.only<Pick<Thing, 'id' | 'details'>>(['details', 'id']);
    expect(some.selectList).toBe('details, id');
    expect(some.toRow({ id: 'b', details: { a: 2 } })).toEqual(['{"a":2}', 'b']);
    expect(some.fromRow({ id: 'b', details: null })).toEqual({ id: 'b', details: null });
  });

  it('binds one column’s value as a statement writes it, and refuses a column it does not map', () => {
    expect(THING.bound('details', [1, 2])).toBe('[1,2]');
    expect(THING.bound('details', null)).toBeNull();
    expect(THING.bound('name', 'x')).toBe('x');
    expect(() => THING.bound('name; DROP TABLE things', 'x')).toThrow(/no column/);
  });
});
