import { destinationPoint, EARTH_RADIUS_METERS, haversineMeters, wrapLongitude } from '#statistics';
import type { BoundingBox, GeoPointInput, SearchCircle } from './dowsing-engine.js';
import { roundTo } from './rounding.js';
import type { PlanePoint } from './simulated-dowser.js';

/**
 * Where the simulated dowser's marks land on the globe: points of a search
 * circle's plane placed (and rounded) inside the circle, the cells of an
 * energy map, and a mark's reach as a share of the radius.
 */

/** Rounding moves a point by up to ~8 cm; pulling it in by a little more than that keeps it inside. */
const ROUNDING_SLACK_METERS = 0.12;

/**
 * A mark of a search circle's azimuthal equidistant plane as a point on the
 * globe, rounded, and never outside the circle: its great-circle distance
 * from the centre is the mark's distance from the origin (destinationPoint),
 * pulled in by the rounding slack if rounding pushed it out.
 */
export function placeInCircle(circle: SearchCircle, mark: PlanePoint): GeoPointInput {
  const centre = { latitude: circle.latitude, longitude: circle.longitude };
  const bearing = Math.atan2(mark.x, mark.y);
  const reach = Math.hypot(mark.x, mark.y);
  for (let step = 0; step <= 8; step++) {
    const exact = destinationPoint(
      centre,
      Math.max(0, reach - step * ROUNDING_SLACK_METERS),
      bearing,
    );
    const rounded = {
      latitude: roundTo(exact.latitude),
      longitude: roundLongitude(exact.longitude),
    };
    if (haversineMeters(centre, rounded) <= circle.radius_meters) return rounded;
  }
  // A circle narrower than the rounding itself: only its centre, as given, is surely inside.
  return centre;
}

/** Rounded and wrapped into [−180, 180). */
function roundLongitude(longitude: number): number {
  const rounded = roundTo(wrapLongitude(longitude));
  return rounded >= 180 ? rounded - 360 : rounded;
}

const RAD = Math.PI / 180;

/** Where the cells of an energy map lie: centres, sizes and reach. */
export function gridGeometry(bounds: BoundingBox, rows: number, columns: number) {
  const span =
    bounds.east > bounds.west ? bounds.east - bounds.west : bounds.east - bounds.west + 360;
  const rowDegrees = (bounds.north - bounds.south) / rows;
  const columnDegrees = span / columns;
  const middle = (bounds.north + bounds.south) / 2;
  const corner = (row: number, column: number) => ({
    latitude: bounds.north - row * rowDegrees,
    longitude: wrapLongitude(bounds.west + column * columnDegrees),
  });
  return {
    cellSize: {
      north_south: roundTo(rowDegrees * RAD * EARTH_RADIUS_METERS, 2),
      east_west: roundTo(columnDegrees * RAD * EARTH_RADIUS_METERS * Math.cos(middle * RAD), 2),
    },
    centre(row: number, column: number): GeoPointInput {
      return {
        latitude: roundTo(bounds.north - (row + 0.5) * rowDegrees),
        longitude: roundLongitude(bounds.west + (column + 0.5) * columnDegrees),
      };
    },
    /** Distance from the cell's centre to its farthest corner: where the truth may be if the cell is right. */
    halfDiagonal(row: number, column: number): number {
      const centre = {
        latitude: bounds.north - (row + 0.5) * rowDegrees,
        longitude: bounds.west + (column + 0.5) * columnDegrees,
      };
      return Math.max(
        ...[
          corner(row, column),
          corner(row + 1, column),
          corner(row, column + 1),
          corner(row + 1, column + 1),
        ].map((c) => haversineMeters(centre, c)),
      );
    },
  };
}

/** A mark's distance from the circle's centre as a share of the radius: the divining rod's reading. */
export function radialShare(mark: PlanePoint, circle: SearchCircle): number {
  return roundTo(Math.min(1, Math.hypot(mark.x, mark.y) / circle.radius_meters));
}
