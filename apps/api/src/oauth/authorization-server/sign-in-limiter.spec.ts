import { describe, expect, it } from 'vitest';
import { accountSpacingSeconds, SIGN_IN_LIMITS } from './sign-in-limiter.js';

describe('accountSpacingSeconds', () => {
  it('spaces nothing up to the threshold, then doubles, never beyond the maximum', () => {
    const threshold = SIGN_IN_LIMITS.accountFailuresBeforeSlowing;
    expect(accountSpacingSeconds(threshold)).toBe(0);
    expect(accountSpacingSeconds(threshold + 1)).toBe(1);
    expect(accountSpacingSeconds(threshold + 2)).toBe(2);
    expect(accountSpacingSeconds(threshold + 4)).toBe(8);
    expect(accountSpacingSeconds(threshold + 1000)).toBe(SIGN_IN_LIMITS.maxAccountSpacingSeconds);
  });
});
