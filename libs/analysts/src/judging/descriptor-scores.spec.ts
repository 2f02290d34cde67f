import { describe, expect, it } from 'vitest';
import { descriptorScores } from './descriptor-scores.js';

describe('descriptorScores', () => {
  it('codes both lists over the vocabulary; free words count for neither side', () => {
    // Truth {water, bridge, stone}; response {Water, stone, metal} plus free words.
    // Overlap 2: accuracy 2/3, reliability 2/3.
    expect(
      descriptorScores(
        ['water', 'bridge', 'stone', 'old town'],
        [' Water', 'stone', 'metal', 'sad'],
      ),
    ).toEqual({ accuracy: 2 / 3, reliability: 2 / 3 });
    // Response {water}: accuracy 1/3, reliability 1.
    expect(descriptorScores(['water', 'bridge', 'stone'], ['water'])).toEqual({
      accuracy: 1 / 3,
      reliability: 1,
    });
    // Nothing said: 0 and 0 (nothing to be right about on the response side).
    expect(descriptorScores(['water'], [])).toEqual({ accuracy: 0, reliability: 0 });
  });

  it('is null when the truth holds no vocabulary descriptor', () => {
    expect(descriptorScores(['old town', 'clock'], ['water'])).toBeNull();
    expect(descriptorScores([], ['water'])).toBeNull();
  });
});
