import { describe, expect, it } from 'vitest';
import { splitRange } from './rollup-range.js';

const at = (iso: string) => new Date(iso);

describe('splitRange', () => {
  it('reads the single all-time period when nothing bounds the range and no series is asked for', () => {
    expect(splitRange(null, null)).toEqual({
      segments: [{ grain: 'all', from: null, before: null }],
      edges: [],
    });
    expect(splitRange(null, null, 'week').segments).toEqual([
      { grain: 'week', from: null, before: null },
    ]);
  });

  it('tiles whole days with whole months and the days at either end', () => {
    expect(splitRange(at('2026-01-20T00:00:00Z'), at('2026-04-03T00:00:00Z'))).toEqual({
      segments: [
        { grain: 'day', from: '2026-01-20', before: '2026-02-01' },
        { grain: 'month', from: '2026-02-01', before: '2026-04-01' },
        { grain: 'day', from: '2026-04-01', before: '2026-04-03' },
      ],
      edges: [],
    });
    expect(splitRange(at('2026-02-01T00:00:00Z'), null).segments).toEqual([
      { grain: 'month', from: '2026-02-01', before: null },
    ]);
    expect(splitRange(null, at('2026-03-15T00:00:00Z')).segments).toEqual([
      { grain: 'month', from: null, before: '2026-03-01' },
      { grain: 'day', from: '2026-03-01', before: '2026-03-15' },
    ]);
  });

  it('reads days only when no whole month fits, and for a daily series', () => {
    expect(splitRange(at('2026-03-02T00:00:00Z'), at('2026-03-05T00:00:00Z')).segments).toEqual([
      { grain: 'day', from: '2026-03-02', before: '2026-03-05' },
    ]);
    expect(splitRange(at('2026-01-20T00:00:00Z'), at('2026-04-03T00:00:00Z'), 'day')).toEqual({
      segments: [{ grain: 'day', from: '2026-01-20', before: '2026-04-03' }],
      edges: [],
    });
  });

  it('tiles a weekly series with ISO weeks from Monday', () => {
    // 2026-03-04 is a Wednesday; 2026-03-09 and 2026-03-23 are Mondays.
    expect(
      splitRange(at('2026-03-04T00:00:00Z'), at('2026-03-25T00:00:00Z'), 'week').segments,
    ).toEqual([
      { grain: 'day', from: '2026-03-04', before: '2026-03-09' },
      { grain: 'week', from: '2026-03-09', before: '2026-03-23' },
      { grain: 'day', from: '2026-03-23', before: '2026-03-25' },
    ]);
  });

  it('reads the parts of the days a date-time cuts case by case', () => {
    expect(splitRange(at('2026-03-02T12:00:00Z'), at('2026-03-04T23:00:00.001Z'))).toEqual({
      segments: [{ grain: 'day', from: '2026-03-03', before: '2026-03-04' }],
      edges: [
        { from: at('2026-03-02T12:00:00Z'), before: at('2026-03-03T00:00:00Z') },
        { from: at('2026-03-04T00:00:00Z'), before: at('2026-03-04T23:00:00.001Z') },
      ],
    });
  });

  it('reads a range inside one day case by case only', () => {
    expect(splitRange(at('2026-03-02T09:00:00Z'), at('2026-03-02T11:00:00Z'))).toEqual({
      segments: [],
      edges: [{ from: at('2026-03-02T09:00:00Z'), before: at('2026-03-02T11:00:00Z') }],
    });
    expect(splitRange(at('2026-03-02T12:00:00Z'), at('2026-03-03T06:00:00Z'))).toEqual({
      segments: [],
      edges: [{ from: at('2026-03-02T12:00:00Z'), before: at('2026-03-03T06:00:00Z') }],
    });
  });
});
