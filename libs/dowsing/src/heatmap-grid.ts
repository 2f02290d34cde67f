import type { BoundingBox } from '#engines';
import { EARTH_RADIUS_METERS } from '#statistics';

/**
 * The geometry of heatmaps: a fixed global grid of tiles and the plan that
 * counts a box's readings per tile exactly while reading as little as it can.
 *
 * Level z divides the globe into square tiles of 180°/2^z of latitude and
 * longitude: row r covers latitudes [r·d − 90, (r+1)·d − 90), column c
 * longitudes [c·d − 180, (c+1)·d − 180). A reading's tile is
 * floor((latitude + 90) / d), floor((longitude + 180) / d), computed the
 * same way (the same float64 operations) here and in PostgreSQL, where
 * `dowsing_reading_tiles` keeps the count and confidence sum of every
 * non-empty tile at the STORED_TILE_LEVELS (migration 1764082800000's
 * trigger). Since d at level z + 2 is exactly d/4, a tile's index at the
 * finer level divided by 4 (>> 2) is its index at the coarser one, also in
 * floating point: the levels nest exactly.
 *
 * Cells are tiles, not a division of the box, so the same place falls in
 * the same cell whatever box is asked for, and the stored tiles answer for
 * all but the box's edges. The plan:
 * - the tiles of the first stored level as fine as the requested one or
 *   finer that lie wholly inside the box, summed into their parent cells;
 * - then at each finer stored level, the tiles wholly inside the box that
 *   the coarser level could not place (a frame at most 4 tiles wide);
 * - then the readings themselves in what is left: four strips along the
 *   box's edges, each less than one finest tile (≈ 76 m) wide.
 * Every reading in the box is counted once; none outside it.
 */

/** Levels of `dowsing_reading_tiles`: every other level from 4 (11.25°) to 18 (≈ 76 m). */
export const STORED_TILE_LEVELS = [4, 6, 8, 10, 12, 14, 16, 18] as const;
/** Tiles of level 25 are 0.6 m tall: the finest a cell of at least 1 m asks for. */
export const MAX_TILE_LEVEL = 25;
export const MAX_HEATMAP_CELLS = 10_000;
/** A scan is an energy map, whose grid is at most 100 × 100 cells. */
export const MAX_SCAN_GRID = 100;

const HALF_MERIDIAN_METERS = Math.PI * EARTH_RADIUS_METERS;
/** Far above the float error of a tile edge (~1e-14°), far below anything a reading means. */
const EDGE_SLACK_DEGREES = 1e-9;

export function tileDegrees(level: number): number {
  return 180 / 2 ** level;
}

/** A tile's height (and its width on the equator), meters. */
export function tileMeters(level: number): number {
  return HALF_MERIDIAN_METERS / 2 ** level;
}

/** The coarsest level whose tiles are no taller than `meters`. */
export function levelForCellSize(meters: number): number {
  for (let level = 0; level < MAX_TILE_LEVEL; level++) {
    if (tileMeters(level) <= meters * (1 + 1e-12)) return level;
  }
  return MAX_TILE_LEVEL;
}

/** A cell size (meters, whole) that `levelForCellSize` maps to `level`. */
export function cellSizeOfLevel(level: number): number {
  return Math.ceil(tileMeters(level));
}

/** Tile indices at a level; row and column ranges are [from, to), rows counted from the south. */
export interface TileRect {
  rows: [number, number];
  columns: [number, number];
}

/** A part of the box on one side of the antimeridian: west ≤ east. */
export interface BoxPart {
  south: number;
  north: number;
  west: number;
  east: number;
  /** The tiles it meets at the requested level (inclusive bounds). */
  rowMin: number;
  rowMax: number;
  columnMin: number;
  columnMax: number;
  /** Its first column in the answer's grid (0 = westernmost). */
  columnOffset: number;
}

/** Stored tiles in `rect` at `level`, summed into requested cells (index >> shift). */
export interface TilePart {
  level: number;
  shift: number;
  rect: TileRect;
}

/**
 * Readings of the box part whose finest-level tile lies outside `outside`
 * (null: all of them), inside a latitude/longitude range that contains them
 * (so an index can find them; the tile condition picks them exactly).
 */
export interface ReadingStrip {
  south: number;
  north: number;
  west: number;
  east: number;
  outside: { level: number; rect: TileRect } | null;
  /** Which index finds it: by latitude (bottom, top, all) or by longitude (left, right). */
  along: 'latitude' | 'longitude';
}

export interface PartPlan {
  part: BoxPart;
  tiles: TilePart[];
  strips: ReadingStrip[];
}

export interface HeatmapGrid {
  level: number;
  bounds: BoundingBox;
  parts: BoxPart[];
  rows: number;
  columns: number;
  cells: number;
  /** Tile height and width, meters (the width along the box's middle parallel). */
  cellSizeMeters: { north_south: number; east_west: number };
}

/** The tiles a box meets at a level, split at the antimeridian when east < west. */
export function heatmapGrid(bounds: BoundingBox, level: number): HeatmapGrid {
  const d = tileDegrees(level);
  const spans =
    bounds.east > bounds.west
      ? [[bounds.west, bounds.east]]
      : [
          [bounds.west, 180],
          [-180, bounds.east],
        ];
  const rowMin = Math.floor((bounds.south + 90) / d);
  const rowMax = Math.max(rowMin, Math.ceil((bounds.north + 90) / d) - 1);
  let columnOffset = 0;
  const parts = spans.map(([west, east]): BoxPart => {
    const columnMin = Math.floor((west! + 180) / d);
    const columnMax = Math.max(columnMin, Math.ceil((east! + 180) / d) - 1);
    const part = {
      south: bounds.south,
      north: bounds.north,
      west: west!,
      east: east!,
      rowMin,
      rowMax,
      columnMin,
      columnMax,
      columnOffset,
    };
    columnOffset += columnMax - columnMin + 1;
    return part;
  });
  const rows = rowMax - rowMin + 1;
  const middle = ((bounds.south + bounds.north) / 2) * (Math.PI / 180);
  return {
    level,
    bounds,
    parts,
    rows,
    columns: columnOffset,
    cells: rows * columnOffset,
    cellSizeMeters: {
      north_south: round(tileMeters(level), 2),
      east_west: round(tileMeters(level) * Math.cos(middle), 2),
    },
  };
}

/** The finest level coarser than `level` whose grid over the box `fits`, if any. */
export function coarserLevelThatFits(
  bounds: BoundingBox,
  level: number,
  fits: (grid: HeatmapGrid) => boolean,
): number | null {
  for (let candidate = level - 1; candidate >= 0; candidate--) {
    if (fits(heatmapGrid(bounds, candidate))) return candidate;
  }
  return null;
}

/**
 * The tiles of `level` wholly inside the part: every reading whose tile this
 * is lies in the box. Strict on the south and west edges (a tile starting
 * exactly on the edge may hold a reading rounded onto it from outside) except
 * at −90 and −180, where nothing lies beyond.
 */
export function interior(part: BoxPart, level: number): TileRect | null {
  const d = tileDegrees(level);
  const rows: [number, number] = [
    part.south === -90 ? 0 : Math.floor((part.south + 90) / d) + 1,
    Math.floor((part.north + 90) / d),
  ];
  const columns: [number, number] = [
    part.west === -180 ? 0 : Math.floor((part.west + 180) / d) + 1,
    Math.floor((part.east + 180) / d),
  ];
  return rows[0] < rows[1] && columns[0] < columns[1] ? { rows, columns } : null;
}

/** `outer` minus `inner` (inner ⊆ outer) as up to four rectangles: bottom, top, left, right. */
export function frame(outer: TileRect, inner: TileRect | null): TileRect[] {
  if (!inner) return [outer];
  const pieces: TileRect[] = [
    { rows: [outer.rows[0], inner.rows[0]], columns: outer.columns },
    { rows: [inner.rows[1], outer.rows[1]], columns: outer.columns },
    { rows: inner.rows, columns: [outer.columns[0], inner.columns[0]] },
    { rows: inner.rows, columns: [inner.columns[1], outer.columns[1]] },
  ];
  return pieces.filter((p) => p.rows[0] < p.rows[1] && p.columns[0] < p.columns[1]);
}

function scaled(rect: TileRect | null, factor: number): TileRect | null {
  if (!rect) return null;
  return {
    rows: [rect.rows[0] * factor, rect.rows[1] * factor],
    columns: [rect.columns[0] * factor, rect.columns[1] * factor],
  };
}

/** What to read for one part of the box: stored tiles level by level, then the readings at its edges. */
export function partPlan(part: BoxPart, level: number): PartPlan {
  const tiles: TilePart[] = [];
  let previous: { level: number; rect: TileRect | null } | null = null;
  for (const stored of STORED_TILE_LEVELS) {
    if (stored < level) continue;
    const rect = interior(part, stored);
    const inner = previous ? scaled(previous.rect, 2 ** (stored - previous.level)) : null;
    if (rect) {
      for (const piece of frame(rect, inner)) {
        tiles.push({ level: stored, shift: stored - level, rect: piece });
      }
    }
    previous = { level: stored, rect };
  }
  return { part, tiles, strips: readingStrips(part, previous) };
}

/** The readings of the part outside the finest stored interior: four strips, or the whole part. */
function readingStrips(
  part: BoxPart,
  finest: { level: number; rect: TileRect | null } | null,
): ReadingStrip[] {
  const whole = { south: part.south, north: part.north, west: part.west, east: part.east };
  if (!finest?.rect) return [{ ...whole, outside: null, along: 'latitude' }];
  const { rect, level } = finest;
  const d = tileDegrees(level);
  const outside = { level, rect };
  const latitudeOf = (row: number) => row * d - 90;
  const longitudeOf = (column: number) => column * d - 180;
  const middle = {
    south: Math.max(part.south, latitudeOf(rect.rows[0]) - EDGE_SLACK_DEGREES),
    north: Math.min(part.north, latitudeOf(rect.rows[1]) + EDGE_SLACK_DEGREES),
  };
  return [
    {
      ...whole,
      north: Math.min(part.north, latitudeOf(rect.rows[0]) + EDGE_SLACK_DEGREES),
      outside,
      along: 'latitude',
    },
    {
      ...whole,
      south: Math.max(part.south, latitudeOf(rect.rows[1]) - EDGE_SLACK_DEGREES),
      outside,
      along: 'latitude',
    },
    {
      ...whole,
      ...middle,
      east: Math.min(part.east, longitudeOf(rect.columns[0]) + EDGE_SLACK_DEGREES),
      outside,
      along: 'longitude',
    },
    {
      ...whole,
      ...middle,
      west: Math.max(part.west, longitudeOf(rect.columns[1]) - EDGE_SLACK_DEGREES),
      outside,
      along: 'longitude',
    },
  ];
}

/**
 * Which of a part's four reading strips (0 below, 1 above, 2 west of, 3 east
 * of the finest interior) holds a reading, by its tile at the finest level;
 * null inside the interior. The SQL of each strip states the same condition.
 */
export function stripIndexOf(
  latitude: number,
  longitude: number,
  outside: { level: number; rect: TileRect },
): number | null {
  const d = tileDegrees(outside.level);
  const row = Math.floor((latitude + 90) / d);
  const column = Math.floor((longitude + 180) / d);
  const { rows, columns } = outside.rect;
  if (row < rows[0]) return 0;
  if (row >= rows[1]) return 1;
  if (column < columns[0]) return 2;
  if (column >= columns[1]) return 3;
  return null;
}

/**
 * What a scan reads: the whole tiles the box meets, as an energy map's box
 * and grid (row 0 northernmost), so each map cell is one tile and its
 * reading lands at the tile's centre. −180..180 when they go all the way
 * round (a tile met on both sides of the antimeridian is read once).
 */
export function scanGrid(grid: HeatmapGrid): {
  bounds: BoundingBox;
  rows: number;
  columns: number;
} {
  const d = tileDegrees(grid.level);
  const first = grid.parts[0]!;
  const last = grid.parts[grid.parts.length - 1]!;
  const round = 2 ** (grid.level + 1);
  const all = grid.columns >= round;
  return {
    bounds: {
      south: first.rowMin * d - 90,
      north: (first.rowMax + 1) * d - 90,
      west: all ? -180 : first.columnMin * d - 180,
      east: all ? 180 : (last.columnMax + 1) * d - 180,
    },
    rows: grid.rows,
    columns: all ? round : grid.columns,
  };
}

/** A tile clipped to its part of the box, with its place in the answer's grid (row 0 northernmost). */
export function cellOf(grid: HeatmapGrid, partIndex: number, tileRow: number, tileColumn: number) {
  const part = grid.parts[partIndex]!;
  const row = Math.min(tileRow, part.rowMax);
  const column = Math.min(tileColumn, part.columnMax);
  const d = tileDegrees(grid.level);
  return {
    row: part.rowMax - row,
    column: part.columnOffset + column - part.columnMin,
    bounds: {
      south: round(Math.max(part.south, row * d - 90), 9),
      west: round(Math.max(part.west, column * d - 180), 9),
      north: round(Math.min(part.north, (row + 1) * d - 90), 9),
      east: round(Math.min(part.east, (column + 1) * d - 180), 9),
    },
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
