import { describe, expect, it } from 'vitest';
import type { DowsingRequest, DowsingVariantInput } from './dowsing-engine.js';
import { dowsingRequestProblem, dowsingSeed } from './dowsing-protocol.js';

const base: DowsingRequest = {
  queryType: 'location',
  question: 'Where is the spring?',
  precisionLevel: 'standard',
  context: { location: { latitude: 10, longitude: 20, radius_meters: 500 } },
  input: { variant: 'query' },
};
const withInput = (input: DowsingVariantInput): DowsingRequest => ({ ...base, input });
const POINT = { latitude: 1, longitude: 2 };

describe('dowsingSeed', () => {
  it('hashes the canonical request: key order does not matter, every field does', () => {
    const seed = dowsingSeed(base, 'org');
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
    const reordered: DowsingRequest = {
      input: { variant: 'query' },
      context: { location: { radius_meters: 500, longitude: 20, latitude: 10 } },
      precisionLevel: 'standard',
      question: 'Where is the spring?',
      queryType: 'location',
    };
    expect(dowsingSeed(reordered, 'org')).toBe(seed);
    expect(dowsingSeed(base, 'other org')).not.toBe(seed);
    expect(dowsingSeed({ ...base, precisionLevel: 'high' }, 'org')).not.toBe(seed);
    expect(
      dowsingSeed({ ...base, context: { ...base.context, timeframe: 'past' } }, 'org'),
    ).not.toBe(seed);
  });
});

describe('dowsingRequestProblem', () => {
  it('accepts a well-formed request of every variant', () => {
    const inputs: DowsingVariantInput[] = [
      { variant: 'query' },
      {
        variant: 'multi_point',
        points: [
          { name: 'a', ...POINT },
          { name: 'b', ...POINT },
        ],
      },
      {
        variant: 'energy_map',
        bounds: { south: 0, west: 179, north: 1, east: -179 },
        grid: { rows: 1, columns: 2 },
      },
      { variant: 'depth_analysis', point: POINT, max_depth_meters: 10 },
      {
        variant: 'material_identification',
        point: null,
        sample_description: null,
        candidates: null,
      },
      { variant: 'chart_analysis', chart_type: 'radar', options: ['x', 'y'] },
      {
        variant: 'location_finding',
        area: { ...POINT, radius_meters: 1 },
        sought: 'ring',
        max_candidates: 1,
      },
      {
        variant: 'energy_detection',
        point: POINT,
        window: { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
      },
    ];
    for (const input of inputs) expect(dowsingRequestProblem(withInput(input))).toBeNull();
  });

  it.each<[string, DowsingRequest, RegExp]>([
    [
      'a location query without its circle',
      { ...base, context: {} },
      /^context\.location: a location query needs/,
    ],
    [
      'a circle of no size',
      { ...base, context: { location: { ...POINT, radius_meters: 0 } } },
      /context\.location\.radius_meters/,
    ],
    [
      'information options that are not a list of strings',
      { ...base, queryType: 'information', context: { parameters: { options: 'a, b' } } },
      /options must be a list of non-empty strings/,
    ],
    [
      'repeated options',
      { ...base, queryType: 'information', context: { parameters: { options: ['a', 'a'] } } },
      /must not repeat/,
    ],
    [
      'one point',
      withInput({ variant: 'multi_point', points: [{ name: 'a', ...POINT }] }),
      /points\[\]\.name must hold 2 to 100/,
    ],
    [
      'a point off the globe',
      withInput({
        variant: 'multi_point',
        points: [
          { name: 'a', ...POINT },
          { name: 'b', latitude: 91, longitude: 0 },
        ],
      }),
      /^points\[1\]: latitude/,
    ],
    [
      'an upside-down box',
      withInput({
        variant: 'energy_map',
        bounds: { south: 2, west: 0, north: 1, east: 1 },
        grid: { rows: 2, columns: 2 },
      }),
      /^bounds: south and north/,
    ],
    [
      'a one-cell grid',
      withInput({
        variant: 'energy_map',
        bounds: { south: 0, west: 0, north: 1, east: 1 },
        grid: { rows: 1, columns: 1 },
      }),
      /^grid:/,
    ],
    [
      'no depth',
      withInput({ variant: 'depth_analysis', point: POINT, max_depth_meters: 0 }),
      /^max_depth_meters/,
    ],
    [
      'one chart option',
      withInput({ variant: 'chart_analysis', chart_type: 'radar', options: ['x'] }),
      /^options must hold 2 to 100 entries, got 1/,
    ],
    [
      'no candidates wanted',
      withInput({
        variant: 'location_finding',
        area: { ...POINT, radius_meters: 1 },
        sought: 'ring',
        max_candidates: 0,
      }),
      /^max_candidates/,
    ],
    [
      'a window running backwards',
      withInput({
        variant: 'energy_detection',
        point: POINT,
        window: { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' },
      }),
      /^window:/,
    ],
  ])('names the field for %s', (_, request, message) => {
    expect(dowsingRequestProblem(request)).toMatch(message);
  });
});
