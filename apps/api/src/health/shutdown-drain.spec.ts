import { describe, expect, it } from 'vitest';
import { drainMs } from './shutdown-drain.js';

describe('drainMs', () => {
  it('is half the shutdown grace, at most 5 s', () => {
    expect(drainMs(6_000)).toBe(3_000);
    expect(drainMs(10_000)).toBe(5_000);
    expect(drainMs(600_000)).toBe(5_000);
    expect(drainMs(1_001)).toBe(500);
    expect(drainMs(0)).toBe(0);
  });
});
