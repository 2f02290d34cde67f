import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BoundingBox } from '#engines';
import {
  cellOf,
  cellSizeOfLevel,
  frame,
  heatmapGrid,
  interior,
  levelForCellSize,
  partPlan,
  scanGrid,
  STORED_TILE_LEVELS,
  stripIndexOf,
  tileDegrees,
  tileMeters,
  type HeatmapGrid,
  type ReadingStrip,
  type TileRect,
} from './heatmap-grid.js';

interface Reading {
  latitude: number;
  longitude: number;
  confidence: number;
}

const tileOf = (r: Reading, level: number) => ({
  row: Math.floor((r.latitude + 90) / tileDegrees(level)),
  column: Math.floor((r.longitude + 180) / tileDegrees(level)),
});

function inBox(r: Reading, box: BoundingBox): boolean {
  const latitude = r.latitude >= box.south && r.latitude <= box.north;
  const longitude =
    box.east > box.west
      ? r.longitude >= box.west && r.longitude <= box.east
      : r.longitude >= box.west || r.longitude <= box.east;
  return latitude && longitude;
}

/** Per cell (row/column of the answer): readings and confidence sum, by looking at every reading. */
function bruteForce(grid: HeatmapGrid, readings: Reading[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of readings) {
    if (!inBox(r, grid.bounds)) continue;
    const partIndex = grid.parts.findIndex((p) => r.longitude >= p.west && r.longitude <= p.east);
    const tile = tileOf(r, grid.level);
    const cell = cellOf(grid, partIndex, tile.row, tile.column);
    const key = `${cell.row}/${cell.column}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The same through the plan: a tile table at the stored levels, then the strips of readings. */
function throughPlan(grid: HeatmapGrid, readings: Reading[]): Map<string, number> {
  const stored = new Map<string, number>();
  for (const r of readings) {
    for (const level of STORED_TILE_LEVELS) {
      const { row, column } = tileOf(r, level);
      const key = `${level}/${row}/${column}`;
      stored.set(key, (stored.get(key) ?? 0) + 1);
    }
  }
  const counts = new Map<string, number>();
  const add = (partIndex: number, row: number, column: number, n: number) => {
    const cell = cellOf(grid, partIndex, row, column);
    const key = `${cell.row}/${cell.column}`;
    counts.set(key, (counts.get(key) ?? 0) + n);
  };
  grid.parts.forEach((part, partIndex) => {
    const plan = partPlan(part, grid.level);
    for (const tiles of plan.tiles) {
      for (const [key, n] of stored) {
        const [level, row, column] = key.split('/').map(Number) as [number, number, number];
        if (level !== tiles.level || !inRect(row, column, tiles.rect)) continue;
        add(partIndex, row >> tiles.shift, column >> tiles.shift, n);
      }
    }
    for (const r of readings) {
      const strips = plan.strips.filter((strip, i) => inStrip(r, strip, i));
      expect(strips.length, JSON.stringify(r)).toBeLessThanOrEqual(1);
      if (strips.length === 1) {
        const { row, column } = tileOf(r, grid.level);
        add(partIndex, row, column, 1);
      }
    }
  });
  return counts;
}

function inRect(row: number, column: number, rect: TileRect): boolean {
  return (
    row >= rect.rows[0] &&
    row < rect.rows[1] &&
    column >= rect.columns[0] &&
    column < rect.columns[1]
  );
}

/** What the SQL of a strip selects: inside its degree range, and outside the finest interior by tile. */
function inStrip(r: Reading, strip: ReadingStrip, index: number): boolean {
  const inRange =
    r.latitude >= strip.south &&
    r.latitude <= strip.north &&
    r.longitude >= strip.west &&
    r.longitude <= strip.east;
  if (!inRange) return false;
  return strip.outside === null || stripIndexOf(r.latitude, r.longitude, strip.outside) === index;
}

const box = (south: number, west: number, north: number, east: number): BoundingBox => ({
  south,
  west,
  north,
  east,
});

describe('levels and cell sizes', () => {
  it('picks the coarsest tiles no taller than the cell size', () => {
    expect(tileMeters(0)).toBeCloseTo(20_015_114.4, 0);
    expect(levelForCellSize(20_015_115)).toBe(0);
    expect(levelForCellSize(1_000)).toBe(15); // 610.8 m tiles; level 14 is 1,221.6 m
    expect(tileMeters(15)).toBeCloseTo(610.81, 2);
    expect(levelForCellSize(1)).toBe(25);
    for (let level = 0; level <= 25; level++) {
      expect(levelForCellSize(cellSizeOfLevel(level))).toBe(level);
      expect(levelForCellSize(tileMeters(level))).toBe(level);
    }
  });

  it('nests exactly: a tile index at level z + 2 over 4 is the index at z, also in floating point', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -90, max: 90, noNaN: true }),
        fc.integer({ min: 0, max: 23 }),
        (latitude, level) => {
          const fine = Math.floor((latitude + 90) / tileDegrees(level + 2));
          expect(fine >> 2).toBe(Math.floor((latitude + 90) / tileDegrees(level)));
        },
      ),
    );
  });
});

describe('heatmapGrid', () => {
  it('counts the tiles a box meets, rows from the north and columns from the west', () => {
    // Level 10: tiles of 0.17578125°.
    const grid = heatmapGrid(box(51.3, -0.5, 51.7, 0.3), 10);
    const d = tileDegrees(10);
    expect(grid.rows).toBe(Math.floor((51.7 + 90) / d) - Math.floor((51.3 + 90) / d) + 1);
    expect(grid.columns).toBe(Math.floor((0.3 + 180) / d) - Math.floor((-0.5 + 180) / d) + 1);
    expect(grid.cells).toBe(grid.rows * grid.columns);
    expect(grid.cellSizeMeters.north_south).toBeCloseTo(19_546.01, 1);
    const northWest = cellOf(grid, 0, grid.parts[0]!.rowMax, grid.parts[0]!.columnMin);
    expect(northWest).toMatchObject({ row: 0, column: 0 });
    expect(northWest.bounds.north).toBe(51.7);
    expect(northWest.bounds.west).toBe(-0.5);
  });

  it('splits a box across the antimeridian into two parts, west one first', () => {
    const grid = heatmapGrid(box(-20, 170, -10, -170), 6);
    expect(grid.parts.map((p) => [p.west, p.east])).toEqual([
      [170, 180],
      [-180, -170],
    ]);
    // 2.8125° tiles: 170..180 meets 4 columns, -180..-170 another 4.
    expect(grid.columns).toBe(8);
    expect(grid.parts[1]!.columnOffset).toBe(4);
    expect(scanGrid(grid).bounds).toEqual({
      south: -22.5,
      north: -8.4375,
      west: 168.75,
      east: -168.75,
    });
  });

  it('puts a reading on the north or east edge in the last row or column, not beyond', () => {
    const grid = heatmapGrid(box(0, 0, 45, 45), 2); // tiles of 45°: the box is one tile
    expect(grid.cells).toBe(1);
    expect(cellOf(grid, 0, 3, 5)).toMatchObject({ row: 0, column: 0 });
  });

  it('snaps a scan of the whole round to −180..180 and its 2^(z+1) columns', () => {
    // West and east fall in the same 22.5° tile: it is a cell on either side (two clipped cells).
    const grid = heatmapGrid(box(-10, 10, 10, 9.9), 3);
    expect(grid.columns).toBe(17);
    expect(scanGrid(grid)).toEqual({
      bounds: { south: -22.5, north: 22.5, west: -180, east: 180 },
      rows: 2,
      columns: 16,
    });
  });
});

describe('interior and frame', () => {
  it('leaves out a tile starting exactly on the south or west edge, except at −90 and −180', () => {
    const part = heatmapGrid(box(0, 0, 90, 90), 2).parts[0]!;
    expect(interior(part, 2)).toEqual({ rows: [3, 4], columns: [5, 6] });
    const world = heatmapGrid(box(-90, -180, 90, 180), 2).parts[0]!;
    expect(interior(world, 2)).toEqual({ rows: [0, 4], columns: [0, 8] });
  });

  it('cuts a rectangle out of another as up to four pieces that cover the rest once', () => {
    const outer: TileRect = { rows: [0, 10], columns: [0, 8] };
    const inner: TileRect = { rows: [2, 7], columns: [3, 5] };
    const pieces = frame(outer, inner);
    expect(pieces).toHaveLength(4);
    const area = (r: TileRect) => (r.rows[1] - r.rows[0]) * (r.columns[1] - r.columns[0]);
    expect(pieces.reduce((sum, p) => sum + area(p), 0)).toBe(area(outer) - area(inner));
    expect(frame(outer, null)).toEqual([outer]);
  });
});

describe('the plan counts every reading in the box once and none outside it', () => {
  const readingNear = (edges: number[], min: number, max: number) =>
    fc.oneof(
      fc.double({ min, max, noNaN: true }),
      fc
        .tuple(fc.constantFrom(...edges), fc.integer({ min: -3, max: 3 }))
        .map(([edge, ulps]) => Math.min(max, Math.max(min, edge + ulps * 1e-13))),
    );

  const scenario = fc
    .record({
      south: fc.double({ min: -90, max: 89, noNaN: true }),
      height: fc.double({ min: 1e-4, max: 30, noNaN: true }),
      west: fc.double({ min: -180, max: 180, noNaN: true }),
      width: fc.double({ min: 1e-4, max: 60, noNaN: true }),
      level: fc.integer({ min: 0, max: 22 }),
    })
    .chain(({ south, height, west, width, level }) => {
      const north = Math.min(90, south + height);
      const east = west + width > 180 ? west + width - 360 : west + width;
      const bounds = box(south, west, north, east);
      const d = tileDegrees(Math.min(level + 4, 25));
      // Readings near the box's edges, near tile edges and anywhere around.
      const latitudes = [south, north, Math.floor((south + 90) / d) * d - 90, -90, 90];
      const longitudes = [west, east, Math.floor((west + 180) / d) * d - 180, -180, 180];
      const reading = fc.record({
        latitude: readingNear(
          latitudes,
          Math.max(-90, south - height),
          Math.min(90, north + height),
        ),
        longitude: fc.oneof(
          readingNear(longitudes, -180, 180),
          fc.double({ min: west - width, max: west + 2 * width, noNaN: true }).map(wrap),
        ),
        confidence: fc.constant(0.5),
      });
      return fc.record({
        bounds: fc.constant(bounds),
        level: fc.constant(level),
        readings: fc.array(reading, { minLength: 1, maxLength: 300 }),
      });
    });

  it('agrees with looking at every reading (property)', () => {
    fc.assert(
      fc.property(scenario, ({ bounds, level, readings }) => {
        if (bounds.east === bounds.west) return;
        const grid = heatmapGrid(bounds, level);
        expect(Object.fromEntries(throughPlan(grid, readings))).toEqual(
          Object.fromEntries(bruteForce(grid, readings)),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('reads stored tiles for all but thin strips along the edges', () => {
    const grid = heatmapGrid(box(51.3, -0.5, 51.7, 0.3), 14);
    const plan = partPlan(grid.parts[0]!, 14);
    const levels = plan.tiles.map((t) => t.level);
    expect(levels[0]).toBe(14);
    expect(levels).toEqual([...levels].sort((a, b) => a - b));
    expect(levels.at(-1)).toBe(18);
    expect(plan.strips).toHaveLength(4);
    for (const strip of plan.strips) {
      const thin = strip.along === 'latitude' ? strip.north - strip.south : strip.east - strip.west;
      expect(thin).toBeLessThan(tileDegrees(18) + 1e-8);
    }
  });

  it('reads the readings alone for cells finer than the finest stored tiles', () => {
    const grid = heatmapGrid(box(51.5, -0.1, 51.501, -0.099), 22);
    const plan = partPlan(grid.parts[0]!, 22);
    expect(plan.tiles).toEqual([]);
    expect(plan.strips).toEqual([
      { south: 51.5, north: 51.501, west: -0.1, east: -0.099, outside: null, along: 'latitude' },
    ]);
  });
});

function wrap(longitude: number): number {
  return longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude;
}
