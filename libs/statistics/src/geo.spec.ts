import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { destinationPoint, EARTH_RADIUS_METERS, haversineMeters, localPlane } from './geo.js';

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

describe('destinationPoint', () => {
  const DEGREE = (Math.PI / 180) * EARTH_RADIUS_METERS;

  it('walks a degree east along the equator and north over the pole', () => {
    const east = destinationPoint({ latitude: 0, longitude: 0 }, DEGREE, Math.PI / 2);
    expect(east.latitude).toBeCloseTo(0, 12);
    expect(east.longitude).toBeCloseTo(1, 12);
    // Half a degree short of the pole, a degree north ends half a degree past it, on the other side.
    const over = destinationPoint({ latitude: 89.5, longitude: 10 }, DEGREE, 0);
    expect(over.latitude).toBeCloseTo(89.5, 9);
    expect(over.longitude).toBeCloseTo(-170, 9);
  });

  it('matches the Movable Type worked example', () => {
    // 53°19′14″N 1°43′47″W, bearing 96°01′18″, 124.8 km → 53°11′18″N 0°08′00″E (R = 6371 km there).
    const start = { latitude: 53 + 19 / 60 + 14 / 3600, longitude: -(1 + 43 / 60 + 47 / 3600) };
    const bearing = ((96 + 1 / 60 + 18 / 3600) * Math.PI) / 180;
    const end = destinationPoint(start, (124_800 * EARTH_RADIUS_METERS) / 6_371_000, bearing);
    expect(end.latitude).toBeCloseTo(53 + 11 / 60 + 18 / 3600, 3);
    expect(end.longitude).toBeCloseTo(8 / 60, 3);
  });

  it('crosses the antimeridian into [−180, 180)', () => {
    const end = destinationPoint({ latitude: 10, longitude: 179.9 }, 50_000, Math.PI / 2);
    expect(end.longitude).toBeLessThan(-179);
    expect(end.longitude).toBeGreaterThanOrEqual(-180);
  });

  it('lands exactly the distance away, at any latitude (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -89.9, max: 89.9, noNaN: true }),
        fc.double({ min: -180, max: 180, noNaN: true }),
        fc.double({ min: 0, max: 2_000_000, noNaN: true }),
        fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }),
        (lat, lon, distance, bearing) => {
          const origin = { latitude: lat, longitude: lon };
          const end = destinationPoint(origin, distance, bearing);
          expect(Math.abs(haversineMeters(origin, end) - distance)).toBeLessThan(1e-3);
          expect(end.longitude).toBeGreaterThanOrEqual(-180);
          expect(end.longitude).toBeLessThan(180);
        },
      ),
    );
  });
});
