import { describe, expect, it } from 'vitest';
import { splitRange } from './rollup-query.js';

const at = (iso: string) => new Date(iso);

describe('splitRange', () => {
  it('reads whole days from the rollups and nothing case by case when the bounds are midnights', () => {
    expect(splitRange(at('2026-03-02T00:00:00Z'), at('2026-03-05T00:00:00Z'))).toEqual({
      rollups: { fromDay: '2026-03-02', beforeDay: '2026-03-05' },
      edges: [],
    });
    expect(splitRange(null, null)).toEqual({
      rollups: { fromDay: null, beforeDay: null },
      edges: [],
    });
  });

  it('reads the parts of the days a date-time cuts case by case', () => {
    expect(splitRange(at('2026-03-02T12:00:00Z'), at('2026-03-04T23:00:00.001Z'))).toEqual({
      rollups: { fromDay: '2026-03-03', beforeDay: '2026-03-04' },
      edges: [
        { from: at('2026-03-02T12:00:00Z'), before: at('2026-03-03T00:00:00Z') },
        { from: at('2026-03-04T00:00:00Z'), before: at('2026-03-04T23:00:00.001Z') },
      ],
    });
  });

  it('reads a range inside one day case by case only', () => {
    expect(splitRange(at('2026-03-02T09:00:00Z'), at('2026-03-02T11:00:00Z'))).toEqual({
      rollups: 'none',
      edges: [{ from: at('2026-03-02T09:00:00Z'), before: at('2026-03-02T11:00:00Z') }],
    });
    expect(splitRange(at('2026-03-02T12:00:00Z'), at('2026-03-03T06:00:00Z'))).toEqual({
      rollups: 'none',
      edges: [{ from: at('2026-03-02T12:00:00Z'), before: at('2026-03-03T06:00:00Z') }],
    });
  });
});
