import { canonicalJson, type JsonValue } from '#common';
import type {
  DowsingRequest,
  GeoPointInput,
  PrecisionLevel,
  SearchCircle,
} from './dowsing-engine.js';
import { MATERIALS } from './dowsing-vocabulary.js';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import { sha256Hex } from './seeded-random.js';

/**
 * How a dowsing query is judged (docs/statistics.md, "Dowsing"): the dowser
 * takes repeated readings, each judged against the ground truth; the hits
 * out of these trials are tested against chance. Precision buys more
 * readings and a tighter tolerance, so a higher level costs more and claims
 * less by luck.
 */
export const READINGS_PER_PRECISION: Readonly<Record<PrecisionLevel, number>> = {
  standard: 12,
  high: 24,
  maximum: 48,
};

/**
 * A location reading hits when it lies within accuracy_meters = radius ×
 * this share of the truth; chance is the disc's share of the search circle,
 * share² (6.25 %, 1 %, 0.25 %).
 */
export const LOCATION_ACCURACY_SHARE: Readonly<Record<PrecisionLevel, number>> = {
  standard: 0.25,
  high: 0.1,
  maximum: 0.05,
};

/**
 * A depth reading hits when it lies within ± max_depth_meters × this share
 * of the true depth; chance is the interval's share of 0..max_depth, twice
 * this (20 %, 10 %, 5 %).
 */
export const DEPTH_TOLERANCE_SHARE: Readonly<Record<PrecisionLevel, number>> = {
  standard: 0.1,
  high: 0.05,
  maximum: 0.025,
};

/** Bounds of every list of answers a request supplies (options, points, candidates, cells). */
export const MIN_DOWSING_OPTIONS = 2;
export const MAX_DOWSING_OPTIONS = 100;

/**
 * The seed every simulated number of a query derives from: hex SHA-256 of
 * the canonical JSON of the request (query type, question, precision,
 * context, variant input), the organisation's seed and the engine version.
 * Same request, same organisation, same version → same outcome.
 */
export function dowsingSeed(request: DowsingRequest, orgSeed: string): string {
  return sha256Hex(
    canonicalJson({
      engineVersion: SIMULATED_ENGINE_VERSION,
      dowsing: {
        queryType: request.queryType,
        question: request.question,
        precisionLevel: request.precisionLevel,
        context: request.context as unknown as JsonValue,
        input: request.input as unknown as JsonValue,
      },
      orgSeed,
    }),
  );
}

/**
 * The options of an information query: `context.parameters.options` when it
 * is there (validated by dowsingRequestProblem), else null (the compass
 * sectors are used).
 */
export function informationOptions(request: DowsingRequest): string[] | null {
  const options = request.context.parameters?.['options'];
  return options === undefined ? null : (options as string[]);
}

/**
 * Why the engine cannot answer a request, naming the field, or null when it
 * can. The HTTP layer validates bounds and types first (400 with this
 * message if it lets such a request through); the engine throws a
 * RangeError with it rather than answer something it cannot stand behind:
 * - a `location` query needs `context.location` (the search circle it
 *   answers inside);
 * - `context.parameters.options` of an information query, the points of
 *   `multi_point`, the candidates of `material_identification` (vocabulary
 *   terms) and the options of `chart_analysis` are 2–100 distinct,
 *   non-empty strings (names for points);
 * - an `energy_map` grid has at least 2 cells, and its bounds are a real box
 *   (south < north; east < west crosses the antimeridian);
 * - depths, radii and counts are positive; coordinates are on the globe; an
 *   energy window runs forwards in time.
 */
export function dowsingRequestProblem(request: DowsingRequest): string | null {
  const { context, input } = request;
  if (context.location && circleProblem('context.location', context.location)) {
    return circleProblem('context.location', context.location);
  }
  if (input.variant === 'query') {
    if (request.queryType === 'location' && !context.location) {
      return 'context.location: a location query needs the search circle to answer inside';
    }
    const options = context.parameters?.['options'];
    if (request.queryType === 'information' && options !== undefined) {
      return listProblem('context.parameters.options', options);
    }
    return null;
  }
  switch (input.variant) {
    case 'multi_point':
      return (
        listProblem(
          'points[].name',
          input.points.map((p) => p.name),
        ) ?? firstProblem(input.points.map((p, i) => pointProblem(`points[${i}]`, p)))
      );
    case 'energy_map': {
      const { bounds, grid } = input;
      if (!(bounds.south >= -90 && bounds.north <= 90 && bounds.south < bounds.north)) {
        return 'bounds: south and north must lie in −90..90 with south < north';
      }
      if (!inRange(bounds.west, -180, 180) || !inRange(bounds.east, -180, 180)) {
        return 'bounds: west and east must lie in −180..180';
      }
      if (bounds.west === bounds.east) return 'bounds: west and east must differ';
      if (!isCount(grid.rows) || !isCount(grid.columns) || grid.rows * grid.columns < 2) {
        return 'grid: rows and columns must be positive integers making at least 2 cells';
      }
      return null;
    }
    case 'depth_analysis':
      if (!(input.max_depth_meters > 0) || !Number.isFinite(input.max_depth_meters)) {
        return 'max_depth_meters must be a positive number';
      }
      return pointProblem('point', input.point);
    case 'material_identification': {
      if (input.point && pointProblem('point', input.point)) {
        return pointProblem('point', input.point);
      }
      if (input.candidates === null) return null;
      const unknown = input.candidates.find((c) => !(MATERIALS as readonly string[]).includes(c));
      if (unknown !== undefined) {
        return `candidates: "${unknown}" is not one of ${MATERIALS.join(', ')}`;
      }
      return listProblem('candidates', input.candidates);
    }
    case 'chart_analysis':
      return listProblem('options', input.options);
    case 'location_finding':
      if (!isCount(input.max_candidates)) return 'max_candidates must be a positive integer';
      return circleProblem('area', input.area);
    case 'energy_detection': {
      const from = Date.parse(input.window.from);
      const to = Date.parse(input.window.to);
      if (Number.isNaN(from) || Number.isNaN(to) || from > to) {
        return 'window: from and to must be timestamps with from ≤ to';
      }
      return pointProblem('point', input.point);
    }
  }
}

function listProblem(field: string, value: unknown): string | null {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.trim() === '')) {
    return `${field} must be a list of non-empty strings`;
  }
  if (value.length < MIN_DOWSING_OPTIONS || value.length > MAX_DOWSING_OPTIONS) {
    return `${field} must hold ${MIN_DOWSING_OPTIONS} to ${MAX_DOWSING_OPTIONS} entries, got ${value.length}`;
  }
  if (new Set(value).size !== value.length) return `${field} must not repeat an entry`;
  return null;
}

function circleProblem(field: string, circle: SearchCircle): string | null {
  if (!(circle.radius_meters > 0) || !Number.isFinite(circle.radius_meters)) {
    return `${field}.radius_meters must be a positive number`;
  }
  return pointProblem(field, circle);
}

function pointProblem(field: string, point: GeoPointInput): string | null {
  return inRange(point.latitude, -90, 90) && inRange(point.longitude, -180, 180)
    ? null
    : `${field}: latitude must lie in −90..90 and longitude in −180..180`;
}

function firstProblem(problems: (string | null)[]): string | null {
  return problems.find((p) => p !== null) ?? null;
}

function inRange(value: number, min: number, max: number): boolean {
  return value >= min && value <= max;
}

function isCount(value: number): boolean {
  return Number.isInteger(value) && value >= 1;
}
