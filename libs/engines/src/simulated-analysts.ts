import type { SearchArea } from '#statistics';
import { DESCRIPTOR_VOCABULARY } from './descriptor-vocabulary.js';
import type { Modality } from './session-engine.js';
import { SeededRandom } from './seeded-random.js';
import { pointInArea } from './simulated-ground-truth.js';
import {
  type AnalystContribution,
  JUDGING_SET_SIZE,
  TRIALS_PER_ANALYST,
} from './session-protocol.js';

/** Reported memberships: a simulated analyst only writes down what felt at least "somewhat" present. */
const RESPONSE_LEVELS = [0.5, 0.75, 1] as const;
/** Descriptors of the session's modality are this many times likelier to be reported. */
const MODALITY_BIAS = 2;

/** Stable id of the n-th simulated analyst (1-based). */
export function simulatedAnalystId(n: number): string {
  return `analyst_sim_${n}`;
}

/**
 * Simulated analysts' blind work. By construction it never looks at the
 * ground truth: picks are uniform over the judging set, points uniform over
 * the search area (which is part of the tasking, so analysts may know it),
 * descriptors a random 3–8 of the vocabulary. Hence every statistic of the
 * simulator sits at chance. Each analyst draws from its own stream.
 */
export function drawContributions(
  seed: string,
  searchArea: SearchArea,
  analystCount: number,
  modality: Modality | null,
): AnalystContribution[] {
  return Array.from({ length: analystCount }, (_, i) => {
    const analystId = simulatedAnalystId(i + 1);
    const random = new SeededRandom(seed, analystId);
    const picks = Array.from({ length: TRIALS_PER_ANALYST }, () =>
      random.int(0, JUDGING_SET_SIZE - 1),
    );
    const memberships = DESCRIPTOR_VOCABULARY.map(() => 0);
    for (const index of chooseDescriptors(random, random.int(3, 8), modality)) {
      memberships[index] = random.pick(RESPONSE_LEVELS);
    }
    return { analystId, picks, memberships, point: pointInArea(random, searchArea) };
  });
}

/** `count` distinct vocabulary indices, favouring the modality's sense. */
function chooseDescriptors(
  random: SeededRandom,
  count: number,
  modality: Modality | null,
): number[] {
  const pool = DESCRIPTOR_VOCABULARY.flatMap((d, i) =>
    d.sense === modality ? Array(MODALITY_BIAS).fill(i) : [i],
  );
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(random.pick(pool));
  return [...chosen];
}
