import { calibratedTrackRecord } from '#statistics';
import type {
  EnergyMapResult,
  LocationFindingResult,
  MultiPointResult,
} from './dowsing-variant-results.js';
import type { DowsingRequest } from './dowsing-engine.js';
import { LOCATION_ACCURACY_SHARE } from './dowsing-protocol.js';
import { scoreJudged, supportShare } from './dowsing-score.js';
import { gridGeometry, placeInCircle, radialShare } from './dowsing-variant-geometry.js';
import {
  type Input,
  type VariantAnswer,
  categoricalCommon,
  chooseAmong,
  meters,
  percent,
  place,
  reading,
} from './dowsing-variant-parts.js';
import { roundSignificant, roundTo, roundToUnitSum } from './rounding.js';
import { densestReadings, distance, readDisc } from './simulated-dowser.js';

/** The simulated variants that answer with places: a located query, multi-point, energy map, location finding. */

/** location: a point inside context.location, the reading the others gather round. */
export function location(request: DowsingRequest, seed: string, n: number): VariantAnswer {
  const circle = request.context.location!;
  const share = LOCATION_ACCURACY_SHARE[request.precisionLevel];
  const accuracy = circle.radius_meters * share;
  const read = readDisc(seed, circle.radius_meters, accuracy, n, 1);
  const [best] = densestReadings(
    read.marks,
    (a, b) => distance(a, b) <= accuracy,
    () => true,
    1,
  );
  const point = placeInCircle(circle, read.marks[best!.index]!);
  const score = scoreJudged(read);
  return {
    answer: `${point.latitude}, ${point.longitude}`,
    judged: read,
    baselineText: `${percent(share ** 2)} per reading (the share of the search circle within accuracy of the truth)`,
    trialNoun: 'reading',
    chartReadings: read.marks.map((mark) => radialShare(mark, circle)),
    pointedAt: `${best!.support} of ${n} readings fell within ${meters(accuracy)} of the answer`,
    coordinates: { ...point, accuracy_meters: roundTo(accuracy, 3) },
    insights: [
      `The answer is the reading with the most others within ${meters(accuracy)} of it (${best!.support} of ${n}); ` +
        `accuracy is ${percent(share)} of the ${meters(circle.radius_meters)} radius at ${request.precisionLevel} precision.`,
    ],
    locations: [place(point, score)],
    readings: [reading(point, score.confidence)],
    variantResult: null,
  };
}

/**
 * multi_point → variant_result:
 * `{ points: [{ name, latitude, longitude, reading, confidence }], strongest }`,
 * points in the request's order; `reading` is the share of readings that
 * chose the point, `confidence` its calibrated share (prior mean 1/k; the
 * points' confidences add up to 1); `strongest` is the name of the point
 * chosen most (ties by lot), also the answer.
 */
export function multiPoint(input: Input<'multi_point'>, seed: string, n: number): VariantAnswer {
  const names = input.points.map((p) => p.name);
  const chosen = chooseAmong(seed, names, n);
  const k = names.length;
  const shares = roundToUnitSum(
    chosen.read.counts.map((count) => supportShare(count, n, 1 / k).share),
  );
  const points = input.points.map((p, i) => ({
    name: p.name,
    latitude: p.latitude,
    longitude: p.longitude,
    reading: roundTo(chosen.read.counts[i]! / n),
    confidence: shares[i]!,
  }));
  const strongest = input.points[chosen.top]!;
  return {
    ...categoricalCommon(chosen),
    coordinates: {
      latitude: strongest.latitude,
      longitude: strongest.longitude,
      accuracy_meters: 0,
    },
    insights: [
      `${strongest.name} was chosen by ${chosen.read.counts[chosen.top]} of ${n} readings among ${k} points${chosen.tieNote}.`,
    ],
    locations: input.points.map((p, i) =>
      place(p, {
        confidence: shares[i]!,
        confidence_interval: supportShare(chosen.read.counts[i]!, n, 1 / k).confidence_interval,
      }),
    ),
    readings: input.points.map((p, i) => reading(p, shares[i]!)),
    variantResult: { points, strongest: strongest.name } satisfies MultiPointResult,
  };
}

/**
 * energy_map → variant_result:
 * `{ grid: { rows, columns, cells, cell_size_meters: { north_south, east_west } },
 *    strongest_cell: { row, column, latitude, longitude } }`.
 * `cells[row][column]` is the share of readings that chose the cell; row 0
 * is the northernmost, column 0 the westernmost (east < west crosses the
 * antimeridian). Cell sizes are along a meridian and along the box's
 * middle parallel. The strongest cell is the one chosen most (ties by lot);
 * its centre is the answer's coordinates, accurate to its farthest corner.
 */
export function energyMap(input: Input<'energy_map'>, seed: string, n: number): VariantAnswer {
  const { rows, columns } = input.grid;
  const k = rows * columns;
  const labels = Array.from(
    { length: k },
    (_, i) => `row ${Math.floor(i / columns)}, column ${i % columns}`,
  );
  const chosen = chooseAmong(seed, labels, n);
  const geometry = gridGeometry(input.bounds, rows, columns);
  const row = Math.floor(chosen.top / columns);
  const column = chosen.top % columns;
  const centre = geometry.centre(row, column);
  const cells = Array.from({ length: rows }, (_, r) =>
    Array.from({ length: columns }, (_, c) => roundTo(chosen.read.counts[r * columns + c]! / n)),
  );
  const score = scoreJudged(chosen.read);
  return {
    ...categoricalCommon(chosen),
    coordinates: { ...centre, accuracy_meters: roundTo(geometry.halfDiagonal(row, column), 3) },
    insights: [
      `The cell at ${chosen.label} was chosen by ${chosen.read.counts[chosen.top]} of ${n} readings; ` +
        `over ${k} cells chance gives each cell ${roundSignificant(n / k, 3)}${chosen.tieNote}.`,
    ],
    locations: [place(centre, score)],
    readings: chosen.read.counts.map((count, i) =>
      reading(
        geometry.centre(Math.floor(i / columns), i % columns),
        roundTo(calibratedTrackRecord(count, n, 1 / k)),
      ),
    ),
    variantResult: {
      grid: { rows, columns, cells, cell_size_meters: geometry.cellSize },
      strongest_cell: { row, column, latitude: centre.latitude, longitude: centre.longitude },
    } satisfies EnergyMapResult,
  };
}

/**
 * location_finding → variant_result:
 * `{ candidates: [{ latitude, longitude, accuracy_meters, confidence }] }`,
 * best first, at most max_candidates, all inside `area`. In each of the n
 * passes the dowser marks max_candidates places; a pass hits when any mark
 * lies within accuracy (radius × 25 %, 10 %, 5 %) of the truth, so the
 * baseline is 1 − (1 − q)^m with q = (accuracy / radius)² — the chance that
 * m random places cover the truth, never above the union bound m·q.
 * Candidates are the marks with the most marks within accuracy, each more
 * than twice the accuracy from those before it; `confidence` is the
 * candidate's calibrated share of the marks (prior mean q).
 */
export function locationFinding(
  input: Input<'location_finding'>,
  request: DowsingRequest,
  seed: string,
  n: number,
): VariantAnswer {
  const { area, max_candidates: m } = input;
  const share = LOCATION_ACCURACY_SHARE[request.precisionLevel];
  const accuracy = area.radius_meters * share;
  const q = share ** 2;
  const read = readDisc(seed, area.radius_meters, accuracy, n, m);
  const marks = read.marks.length;
  const dense = densestReadings(
    read.marks,
    (a, b) => distance(a, b) <= accuracy,
    (a, b) => distance(a, b) > 2 * accuracy,
    m,
  );
  const candidates = dense.map(({ index, support }) => {
    const point = placeInCircle(area, read.marks[index]!);
    const backing = supportShare(support, marks, q);
    return { point, support, confidence: roundTo(backing.share), backing };
  });
  const [first] = candidates;
  return {
    answer: `${first!.point.latitude}, ${first!.point.longitude}`,
    judged: read,
    baselineText: `${percent(read.p0)} per pass (${m} mark${m === 1 ? '' : 's'} a pass, each covering ${percent(q)} of the area)`,
    trialNoun: 'pass',
    chartReadings: read.marks.map((mark) => radialShare(mark, area)),
    pointedAt: `${first!.support} of ${marks} marks fell within ${meters(accuracy)} of the best candidate`,
    coordinates: { ...first!.point, accuracy_meters: roundTo(accuracy, 3) },
    insights: [
      `${n} passes marked ${m} place${m === 1 ? '' : 's'} each for “${input.sought}” (${marks} marks); ` +
        `${candidates.length} candidate${candidates.length === 1 ? '' : 's'} gathered the most marks within ${meters(accuracy)}, the best ${first!.support}.`,
    ],
    locations: candidates.map((c) =>
      place(c.point, {
        confidence: c.confidence,
        confidence_interval: c.backing.confidence_interval,
      }),
    ),
    readings: candidates.map((c) => reading(c.point, c.confidence)),
    variantResult: {
      candidates: candidates.map((c) => ({
        latitude: c.point.latitude,
        longitude: c.point.longitude,
        accuracy_meters: roundTo(accuracy, 3),
        confidence: c.confidence,
      })),
    } satisfies LocationFindingResult,
  };
}
