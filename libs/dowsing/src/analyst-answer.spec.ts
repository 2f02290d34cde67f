import { describe, expect, it } from 'vitest';
import { combineSubmissions } from '#analysts';
import type { DowsingVariantInput } from '#engines';
import { haversineMeters } from '#statistics';
import {
  dowsingAnswerFrom,
  forCombining,
  pickOf,
  type DowsingSubmission,
} from './analyst-answer.js';

const P0 = 0.2;
const NONE = { hits: 0, trials: 0, p0: P0 };

function submission(
  analystId: string,
  descriptors: string[],
  point: DowsingSubmission['point'] = null,
): DowsingSubmission {
  return { analystId, descriptors, point, notes: null };
}

function answer(
  queryType: 'yes_no' | 'information' | 'location',
  input: DowsingVariantInput,
  submissions: DowsingSubmission[],
) {
  const combining = forCombining(queryType, input, submissions);
  const combined = combineSubmissions(combining, new Map(), P0, null);
  return dowsingAnswerFrom({ queryType, input }, combining, combined, NONE);
}

describe('pickOf', () => {
  it('reads one yes/no answer, and none from two different ones', () => {
    expect(
      pickOf(submission('a', ['cold', 'Yes']), ['positive', 'negative', 'neutral'], true),
    ).toBe('positive');
    expect(pickOf(submission('a', ['no', 'negative']), [], true)).toBe('negative');
    expect(pickOf(submission('a', ['yes', 'no']), [], true)).toBeNull();
    expect(pickOf(submission('a', ['water']), [], true)).toBeNull();
  });

  it('takes the first descriptor naming an option, compared lower-cased', () => {
    expect(
      pickOf(
        submission('a', ['old', ' limmatquai ', 'Paradeplatz']),
        ['Limmatquai', 'Paradeplatz'],
        false,
      ),
    ).toBe('Limmatquai');
    expect(pickOf(submission('a', ['old']), ['Limmatquai'], false)).toBeNull();
  });
});

describe('dowsingAnswerFrom', () => {
  it('answers yes/no by the weighted majority, neutral on a tie', () => {
    const yes = answer('yes_no', { variant: 'query' }, [
      submission('a', ['yes']),
      submission('b', ['yes', 'water']),
      submission('c', ['no']),
    ]);
    // Equal weights: positive 2/3, negative 1/3; agreement (2/3 − 1/3)/(2/3) = 0.5 and 0 → 0.25.
    expect(yes).toMatchObject({
      answer: 'positive',
      confidence: 0.25,
      baseline: 0.333333,
      chart_data: { chart_type: 'pendulum', readings: [0.666667, 0.333333, 0] },
      statistical_significance: { p_value: 1, effect_size: 0, sample_size: 0 },
      locations: [],
      variant_result: null,
    });
    expect(yes.coordinates).toBeUndefined();
    const tie = answer('yes_no', { variant: 'query' }, [
      submission('a', ['yes']),
      submission('b', ['no']),
    ]);
    expect(tie.answer).toBe('neutral');
    expect(answer('yes_no', { variant: 'query' }, [submission('a', ['warm'])]).answer).toBe(
      'neutral',
    );
  });

  it('answers a chart by the plurality of the picks, at chance 1/k', () => {
    const chart = answer(
      'information',
      { variant: 'chart_analysis', chart_type: 'radar', options: ['A', 'B', 'C', 'D'] },
      [submission('a', ['b']), submission('b', ['B']), submission('c', ['x'])],
    );
    // c picked nothing: B has all the weight of the picks.
    expect(chart).toMatchObject({
      answer: 'B',
      baseline: 0.25,
      chart_data: { chart_type: 'radar', readings: [0, 1, 0, 0] },
    });
  });

  it('places a location at the weighted geometric median, accuracy the mean distance', () => {
    const a = { latitude: 10, longitude: 20 };
    const b = { latitude: 10.1, longitude: 20 };
    const placed = answer('location', { variant: 'query' }, [
      submission('a', ['spring'], a),
      submission('b', ['spring'], a),
      submission('c', ['spring'], b),
    ]);
    expect(placed.answer).toBe('10, 20');
    expect(placed.coordinates).toEqual({
      latitude: 10,
      longitude: 20,
      accuracy_meters: Math.round(haversineMeters(a, b) / 3),
    });
    expect(placed.locations[0]!.coordinates).toEqual({ lat: 10, lng: 20 });
    expect(answer('location', { variant: 'query' }, [submission('a', ['spring'])]).answer).toBe(
      'undetermined',
    );
  });

  it('answers an open question with the most supported descriptor', () => {
    const open = answer('information', { variant: 'query' }, [
      submission('a', ['copper', 'deep']),
      submission('b', ['deep']),
    ]);
    expect(open.answer).toBe('deep');
    expect(open.chart_data.readings).toEqual([1, 0.5]);
  });
});
