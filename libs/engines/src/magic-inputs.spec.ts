import { describe, expect, it } from 'vitest';
import { MAGIC_INPUTS, magicEffects, SLOW_STEP_MULTIPLIER } from './magic-inputs.js';

describe('magicEffects', () => {
  it('documents every token', () => {
    for (const entry of Object.values(MAGIC_INPUTS)) {
      expect(entry.token).toMatch(/^\[\w+\]$/);
      expect(entry.description.length).toBeGreaterThan(20);
    }
  });

  it('detects tokens anywhere, case-insensitively, with [fail] first', () => {
    expect(magicEffects('plain target')).toEqual({ failure: null, stepMultiplier: 1 });
    expect(magicEffects('Site [FAIL] north')).toEqual({
      failure: 'engine_failure',
      stepMultiplier: 1,
    });
    expect(magicEffects('[timeout]').failure).toBe('deadline_exceeded');
    expect(magicEffects('[timeout][fail]').failure).toBe('engine_failure');
    expect(magicEffects('[slow] [timeout]')).toEqual({
      failure: 'deadline_exceeded',
      stepMultiplier: SLOW_STEP_MULTIPLIER,
    });
    expect(magicEffects('fail timeout slow').failure).toBeNull(); // brackets required
  });
});
