import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EARTH_RADIUS_METERS, haversineMeters, localPlane } from './geo.js';

describe('haversineMeters', () => {
  it('matches textbook distances', () => {
    // One degree of arc on the mean sphere: R·π/180.
    expect(
      haversineMeters({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 }),
    ).toBeCloseTo(111_195.08, 2);
    // Half a great circle.
    expect(
      haversineMeters({ latitude: 0, longitude: 0 }, { latitude: 0, longitude: 180 }),
    ).toBeCloseTo(Math.PI * EARTH_RADIUS_METERS, 4);
    // Ed Williams, Aviation Formulary, worked example: LAX (33°57′N 118°24′W)
    // to JFK (40°38′N 73°47′W) is 0.623585 rad of arc.
    const lax = { latitude: 33 + 57 / 60, longitude: -(118 + 24 / 60) };
    const jfk = { latitude: 40 + 38 / 60, longitude: -(73 + 47 / 60) };
    expect(haversineMeters(lax, jfk) / EARTH_RADIUS_METERS).toBeCloseTo(0.623585, 6);
  });

  it('crosses the antimeridian the short way', () => {
    const d = haversineMeters(
      { latitude: 0, longitude: 179.5 },
      { latitude: 0, longitude: -179.5 },
    );
    expect(d).toBeCloseTo(111_195.08, 2);
  });
});

describe('localPlane', () => {
  it('round-trips points (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -80, max: 80, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: -0.5, max: 0.5, noNaN: true }),
        fc.double({ min: -0.5, max: 0.5, noNaN: true }),
        (lat, lon, dLat, dLon) => {
          const plane = localPlane({ latitude: lat, longitude: lon });
          const point = { latitude: lat + dLat, longitude: lon + dLon };
          const { x, y } = plane.toPlane(point);
          const back = plane.toGeo(x, y);
          expect(haversineMeters(back, point)).toBeLessThan(1e-6);
          // Within a degree the plane distance is close to the great circle.
          expect(Math.hypot(x, y)).toBeCloseTo(
            haversineMeters({ latitude: lat, longitude: lon }, point),
            -3,
          );
        },
      ),
    );
  });
});
