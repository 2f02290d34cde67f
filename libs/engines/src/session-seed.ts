import { canonicalJson } from './canonical-json.js';
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
