/** Geographic helpers shared by the location statistics. */

export interface GeoPoint {
  latitude: number;
  longitude: number;
}

/** IUGG mean Earth radius R1 (metres): the usual sphere for haversine. */
export const EARTH_RADIUS_METERS = 6_371_008.8;

const RAD = Math.PI / 180;

/** Great-circle distance on the mean-radius sphere (haversine formula). */
export function haversineMeters(a: GeoPoint, b: GeoPoint): number {
  const dLat = (b.latitude - a.latitude) * RAD;
  const dLon = (b.longitude - a.longitude) * RAD;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * RAD) * Math.cos(b.latitude * RAD) * Math.sin(dLon / 2) ** 2;
  // min() guards asin against 1 + ε from rounding at antipodes.
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Wraps a longitude into [−180, 180). */
export function wrapLongitude(longitude: number): number {
  return ((((longitude + 180) % 360) + 360) % 360) - 180;
}

/**
 * Local equirectangular projection around an origin: x east and y north, in
 * metres. A degree of longitude shrinks with cos(latitude), so raw degrees
 * are not comparable; in this plane they are, which is what Euclidean
 * algorithms (Weiszfeld) need. Accurate for areas of a few hundred km.
 */
export interface LocalPlane {
  toPlane(point: GeoPoint): { x: number; y: number };
  toGeo(x: number, y: number): GeoPoint;
}

export function localPlane(origin: GeoPoint): LocalPlane {
  const metersPerRad = EARTH_RADIUS_METERS;
  const cosLat = Math.max(1e-12, Math.cos(origin.latitude * RAD));
  return {
    toPlane(point) {
      // Longitude difference taken the short way round the antimeridian.
      const dLon = wrapLongitude(point.longitude - origin.longitude);
      return {
        x: dLon * RAD * cosLat * metersPerRad,
        y: (point.latitude - origin.latitude) * RAD * metersPerRad,
      };
    },
    toGeo(x, y) {
      return {
        latitude: origin.latitude + y / metersPerRad / RAD,
        longitude: wrapLongitude(origin.longitude + x / (cosLat * metersPerRad) / RAD),
      };
    },
  };
}

/**
 * The point reached from `origin` by travelling `distanceMeters` along the
 * great circle that leaves it at `bearingRadians` (clockwise from north) —
 * the "direct" problem on the mean sphere. Its great-circle distance from
 * the origin is exactly `distanceMeters` (up to rounding, for distances up
 * to half a circumference) at every latitude and across the antimeridian,
 * which a local plane cannot promise far from the equator: points placed
 * with it stay inside a search circle.
 */
export function destinationPoint(
  origin: GeoPoint,
  distanceMeters: number,
  bearingRadians: number,
): GeoPoint {
  const angular = distanceMeters / EARTH_RADIUS_METERS;
  const lat1 = origin.latitude * RAD;
  const sinLat2 =
    Math.sin(lat1) * Math.cos(angular) +
    Math.cos(lat1) * Math.sin(angular) * Math.cos(bearingRadians);
  const lat2 = Math.asin(Math.max(-1, Math.min(1, sinLat2)));
  const dLon = Math.atan2(
    Math.sin(bearingRadians) * Math.sin(angular) * Math.cos(lat1),
    Math.cos(angular) - Math.sin(lat1) * sinLat2,
  );
  return {
    latitude: lat2 / RAD,
    longitude: wrapLongitude(origin.longitude + dLon / RAD),
  };
}
