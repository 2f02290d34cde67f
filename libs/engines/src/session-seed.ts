import { canonicalJson } from '#common';
import { SIMULATED_ENGINE_VERSION } from './engine-version.js';
import { sha256Hex } from './seeded-random.js';
import type { SessionWorkInput } from './session-engine.js';

export const MAX_SIMULATED_ANALYSTS = 100;

/** Input with defaults applied, so `analystCount: 1` and omitting it hash the same. */
export function normalizeInput(input: SessionWorkInput): Required<SessionWorkInput> {
  const analystCount = input.analystCount ?? 1;
  if (
    !Number.isInteger(analystCount) ||
    analystCount < 1 ||
    analystCount > MAX_SIMULATED_ANALYSTS
  ) {
    throw new RangeError(
      `analystCount must be an integer in 1..${MAX_SIMULATED_ANALYSTS}, got ${analystCount}`,
    );
  }
  return {
    type: input.type,
    target: input.target,
    modality: input.modality,
    durationMinutes: input.durationMinutes,
    privacyLevel: input.privacyLevel,
    analystCount,
  };
}

/**
 * The seed every simulated number derives from: hex SHA-256 of the
 * canonical JSON of the (normalised) input, the organisation's seed and the
 * engine version. Same request, same org, same version → same outcome.
 */
export function sessionSeed(input: SessionWorkInput, orgSeed: string): string {
  return sha256Hex(
    canonicalJson({
      engineVersion: SIMULATED_ENGINE_VERSION,
      input: { ...normalizeInput(input) },
      orgSeed,
    }),
  );
}

/**
 * The seed of a target's synthetic ground truth: the organisation's seed, the
 * session type and the target, never the rest of the request. Every session
 * on one target therefore faces the same truth, as real sessions would, and
 * their work can be merged (SimulatedSessionEngine#merge).
 */
export function truthSeed(
  input: Pick<SessionWorkInput, 'type' | 'target'>,
  orgSeed: string,
): string {
  return sha256Hex(
    canonicalJson({
      engineVersion: SIMULATED_ENGINE_VERSION,
      truth: { type: input.type, target: input.target },
      orgSeed,
    }),
  );
}

/** The seed of a merged outcome: the sources' seeds, in the order given. */
export function mergedSeed(sourceSeeds: readonly string[]): string {
  return sha256Hex(
    canonicalJson({ engineVersion: SIMULATED_ENGINE_VERSION, merged: [...sourceSeeds] }),
  );
}
