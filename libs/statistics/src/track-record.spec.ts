import { describe, expect, it } from 'vitest';
import { calibratedTrackRecord } from './track-record.js';

describe('calibratedTrackRecord', () => {
  it('shrinks towards chance', () => {
    expect(calibratedTrackRecord(0, 0, 0.25)).toBe(0.25); // no record: the prior mean
    expect(calibratedTrackRecord(3, 4, 0.25)).toBeCloseTo((3 + 0.5) / (4 + 2), 15); // 0.583, not 0.75
    expect(calibratedTrackRecord(300, 400, 0.25)).toBeCloseTo(300.5 / 402, 15); // a long record speaks
    expect(calibratedTrackRecord(3, 4, 0.25, 8)).toBeCloseTo((3 + 2) / (4 + 8), 15);
    expect(() => calibratedTrackRecord(1, 1, 0.25, 0)).toThrow(RangeError);
  });
});
