import { describe, expect, it } from 'vitest';
import {
  MAX_ATTEMPTS,
  nextDelayMs,
  parseRetryAfter,
  RETRY_DELAYS_SECONDS,
} from './retry-schedule.js';

describe('the retry schedule', () => {
  it('is the spec’s: 7 attempts, 1 h 42 min 35 s from the first to the last', () => {
    expect(MAX_ATTEMPTS).toBe(7);
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, made) => nextDelayMs(made, 7, 1, null));
    expect(delays).toEqual([0, 5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000]);
    expect(RETRY_DELAYS_SECONDS.reduce<number>((sum, s) => sum + s, 0)).toBe(3600 + 42 * 60 + 35);
  });

  it('has no attempt after the last', () => {
    expect(nextDelayMs(7, 7, 1, null)).toBeNull();
    expect(nextDelayMs(1, 1, 1, 30)).toBeNull();
  });

  it('scales every delay (tests run it a thousand times faster)', () => {
    expect(nextDelayMs(3, 7, 0.001, null)).toBe(120);
  });

  it('lets Retry-After push an attempt later, never sooner, and never past the longest step', () => {
    expect(nextDelayMs(1, 7, 1, 60)).toBe(60_000);
    expect(nextDelayMs(2, 7, 1, 1)).toBe(30_000);
    expect(nextDelayMs(1, 7, 1, 86_400)).toBe(3_600_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it.each([
    [undefined, null],
    ['120', 120],
    [' 5 ', 5],
    ['Mon, 23 Nov 2026 12:01:30 GMT', 90],
    ['Mon, 23 Nov 2026 11:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['12:00', null],
  ])('reads %j as %j seconds', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});
