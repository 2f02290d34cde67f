import { EARTH_RADIUS_METERS } from '#statistics';

/**
 * SQL for the great-circle distance in metres (haversine on the mean-radius
 * sphere, as #statistics' haversineMeters) between a row's point and
 * another, each given as SQL expressions (columns or bound parameters).
 */
export function haversineSql(
  latitude: string,
  longitude: string,
  pointLatitude: string,
  pointLongitude: string,
): string {
  return `(2 * ${EARTH_RADIUS_METERS} * asin(least(1, sqrt(
    power(sin(radians(${latitude} - ${pointLatitude}) / 2), 2)
    + cos(radians(${pointLatitude})) * cos(radians(${latitude}))
      * power(sin(radians(${longitude} - ${pointLongitude}) / 2), 2)))))`;
}
