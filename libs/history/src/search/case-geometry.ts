import { EARTH_RADIUS_METERS, haversineMeters, wrapLongitude, type GeoPoint } from '#statistics';

import type { SearchBox, SearchCircle } from './case-search-filters.js';

/**
 * The straight-line (chord) distance through the sphere between two points
 * `meters` apart along it: the half-side of the `earth` cube that holds the
 * circle, so the GiST index finds its candidates. A little wider, so
 * rounding never loses a case on the edge.
 */
export function chordMeters(meters: number): number {
  const angle = Math.min(Math.PI, meters / EARTH_RADIUS_METERS);
  return 2 * EARTH_RADIUS_METERS * Math.sin(angle / 2) * (1 + 1e-9) + 1;
}

const EDGE_SAMPLES = 32;

/**
 * A circle that holds the whole box, for the index: centred on the box's
 * middle, its radius the farthest of many points along the box's edges
 * (on a sphere the farthest point of a region lies on its edge unless the
 * region holds the antipode), widened by the largest gap between samples.
 * Null when the box is too large for a circle to narrow anything.
 */
export function circleAroundBox(box: SearchBox): SearchCircle | null {
  const width = box.east >= box.west ? box.east - box.west : box.east + 360 - box.west;
  if (width >= 180 || box.north - box.south >= 90) return null;
  const centre: GeoPoint = {
    latitude: (box.south + box.north) / 2,
    longitude: wrapLongitude(box.west + width / 2),
  };
  let farthest = 0;
  for (let i = 0; i <= EDGE_SAMPLES; i++) {
    const t = i / EDGE_SAMPLES;
    const latitude = box.south + (box.north - box.south) * t;
    const longitude = wrapLongitude(box.west + width * t);
    for (const point of [
      { latitude, longitude: box.west },
      { latitude, longitude: box.east },
      { latitude: box.south, longitude },
      { latitude: box.north, longitude },
    ]) {
      farthest = Math.max(farthest, haversineMeters(centre, point));
    }
  }
  const gap = haversineMeters(
    { latitude: 0, longitude: 0 },
    { latitude: 0, longitude: Math.max(width, box.north - box.south) / EDGE_SAMPLES },
  );
  return { ...centre, radiusKm: (farthest + gap) / 1000 };
}
