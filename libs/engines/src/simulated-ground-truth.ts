import { localPlane } from '#statistics';
import { DESCRIPTOR_TERMS } from './descriptor-vocabulary.js';
import { SeededRandom } from './seeded-random.js';
import {
  JUDGING_SET_SIZE,
  type SessionGroundTruth,
  TRIALS_PER_ANALYST,
} from './session-protocol.js';

/** Fuzzy membership levels used when coding (SAIC coded on quarter steps). */
export const MEMBERSHIP_LEVELS = [0.25, 0.5, 0.75, 1] as const;

/**
 * A synthetic ground truth drawn from the seed alone: a search area
 * (latitudes kept within ±60° where the local plane is well-behaved; radius
 * log-uniform 1–50 km), a target uniform within it, the target's position
 * in each trial's judging set, and a coding of 4–10 descriptors.
 */
export function drawGroundTruth(seed: string): SessionGroundTruth {
  const random = new SeededRandom(seed, 'ground-truth');
  const center = { latitude: -60 + 120 * random.next(), longitude: -180 + 360 * random.next() };
  const radiusMeters = 1000 * 50 ** random.next();
  const searchArea = { center, radiusMeters };

  const targetPositions = Array.from({ length: TRIALS_PER_ANALYST }, () =>
    random.int(0, JUDGING_SET_SIZE - 1),
  );

  const targetMemberships = DESCRIPTOR_TERMS.map(() => 0);
  const coded = random.sample(
    DESCRIPTOR_TERMS.map((_, i) => i),
    random.int(4, 10),
  );
  for (const i of coded) targetMemberships[i] = random.pick(MEMBERSHIP_LEVELS);

  return {
    searchArea,
    target: pointInArea(random, searchArea),
    targetPositions,
    targetMemberships,
  };
}

/** Uniform over the disc's area (√u radius), in the area's local plane. */
export function pointInArea(random: SeededRandom, area: SessionGroundTruth['searchArea']) {
  const r = area.radiusMeters * Math.sqrt(random.next());
  const angle = 2 * Math.PI * random.next();
  return localPlane(area.center).toGeo(r * Math.cos(angle), r * Math.sin(angle));
}
