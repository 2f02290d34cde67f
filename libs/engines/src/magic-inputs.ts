import type { FailureReason } from './session-engine.js';

/**
 * Test inputs for integration testing, like a payment sandbox's test card
 * numbers: put a token anywhere in `target` (case-insensitive) to force an
 * outcome. Everything else about the run stays deterministic.
 * Precedence when several appear: [fail], then [timeout]; [slow] combines
 * with either.
 */
export const SLOW_STEP_MULTIPLIER = 10;

export const MAGIC_INPUTS = {
  fail: {
    token: '[fail]',
    description:
      "The run ends with status 'failed', reason 'engine_failure', at a seed-derived progress step between 10 and 80.",
  },
  timeout: {
    token: '[timeout]',
    description: "The run ends with status 'failed', reason 'deadline_exceeded', at progress 90.",
  },
  slow: {
    token: '[slow]',
    description: `The outcome carries stepMultiplier = ${SLOW_STEP_MULTIPLIER}: the worker should stretch the time between progress steps by that factor (results unchanged).`,
  },
} as const satisfies Record<string, { token: string; description: string }>;

export interface MagicEffects {
  failure: FailureReason | null;
  stepMultiplier: number;
}

export function magicEffects(target: string): MagicEffects {
  const text = target.toLowerCase();
  const failure: FailureReason | null = text.includes(MAGIC_INPUTS.fail.token)
    ? 'engine_failure'
    : text.includes(MAGIC_INPUTS.timeout.token)
      ? 'deadline_exceeded'
      : null;
  return {
    failure,
    stepMultiplier: text.includes(MAGIC_INPUTS.slow.token) ? SLOW_STEP_MULTIPLIER : 1,
  };
}
