import { binomialTailP, calibratedTrackRecord, haversineMeters } from '#statistics';
import { describe, expect, it } from 'vitest';
import type {
  CompletedDowsingOutcome,
  DowsingRequest,
  DowsingVariantInput,
  SearchCircle,
} from './dowsing-engine.js';
import {
  COMPASS_SECTORS,
  ENERGY_SIGNATURES,
  MATERIALS,
  YES_NO_ANSWERS,
} from './dowsing-vocabulary.js';
import { EngineRegistry } from './engine-registry.js';
import { roundSignificant, roundTo } from './rounding.js';
import { SimulatedDowsingEngine } from './simulated-dowsing-engine.js';

const engine = new SimulatedDowsingEngine();
const ORG_SEED = 'a'.repeat(64);
const BERLIN: SearchCircle = { latitude: 52.52, longitude: 13.405, radius_meters: 1_000 };
const POINT = { latitude: 47.3769, longitude: 8.5417 };

function request(overrides: Partial<DowsingRequest> = {}): DowsingRequest {
  return {
    queryType: 'yes_no',
    question: 'Is there water under the meadow?',
    precisionLevel: 'standard',
    context: {},
    input: { variant: 'query' },
    ...overrides,
  };
}

function variant(input: DowsingVariantInput, overrides: Partial<DowsingRequest> = {}) {
  return request({ queryType: 'location', input, ...overrides });
}

function completed(req: DowsingRequest, orgSeed = ORG_SEED): CompletedDowsingOutcome {
  const outcome = engine.outcome(req, orgSeed);
  if (outcome.status !== 'completed') throw new Error(`expected completed, got ${outcome.status}`);
  return outcome;
}

/** Units of the last (sixth) decimal place: shares that add up to 1 add up to 1,000,000 of them. */
const units = (values: number[]) => values.reduce((sum, v) => sum + Math.round(v * 1e6), 0);

const EXAMPLES: Record<string, DowsingRequest> = {
  yes_no: request(),
  information: request({ queryType: 'information', question: 'Which way is the spring?' }),
  location: request({ queryType: 'location', context: { location: BERLIN } }),
  multi_point: variant({
    variant: 'multi_point',
    points: [
      { name: 'Well A', latitude: 52.52, longitude: 13.4 },
      { name: 'Well B', latitude: 52.53, longitude: 13.41 },
      { name: 'Well C', latitude: 52.51, longitude: 13.39 },
    ],
  }),
  energy_map: variant({
    variant: 'energy_map',
    bounds: { south: 52.5, west: 13.3, north: 52.6, east: 13.5 },
    grid: { rows: 4, columns: 5 },
  }),
  depth_analysis: variant({ variant: 'depth_analysis', point: POINT, max_depth_meters: 50 }),
  material_identification: variant({
    variant: 'material_identification',
    point: POINT,
    sample_description: 'Dark, heavy, cold to the touch',
    candidates: null,
  }),
  chart_analysis: variant(
    { variant: 'chart_analysis', chart_type: 'radar', options: ['spring', 'summer', 'autumn'] },
    { queryType: 'information' },
  ),
  location_finding: variant({
    variant: 'location_finding',
    area: BERLIN,
    sought: 'a lost ring',
    max_candidates: 3,
  }),
  energy_detection: variant({
    variant: 'energy_detection',
    point: POINT,
    window: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' },
  }),
};

describe('SimulatedDowsingEngine', () => {
  it('is the simulated dowsing engine, answering inline, and the registry finds it', () => {
    expect(engine).toMatchObject({ name: 'simulated', kind: 'dowsing', answersInline: true });
    expect(new EngineRegistry([engine]).dowsing('simulated')).toBe(engine);
    expect(new EngineRegistry([engine]).engineFor('dowsing', 'test')).toBe('simulated');
  });

  describe.each(Object.entries(EXAMPLES))('%s', (_, req) => {
    it('gives the same outcome for the same request, another for another organisation', async () => {
      const outcome = completed(req);
      expect(await engine.run(req, ORG_SEED, null, 'test')).toEqual(outcome);
      expect(completed(structuredClone(req))).toEqual(outcome);
      const other = completed(req, 'b'.repeat(64));
      expect(other.seed).not.toBe(outcome.seed);
      expect(other.result).not.toEqual(outcome.result);
    });

    it('reports statistics computed from its own counts, as plain JSON', () => {
      const { result, judging, evidence } = completed(req);
      const { hits, trials, p0 } = judging;
      expect(evidence).toBe('prior');
      expect(result.statistical_significance).toEqual({
        p_value: roundSignificant(binomialTailP(hits, trials, p0)),
        effect_size: result.statistical_significance.effect_size,
        sample_size: trials,
      });
      expect(result.statistical_significance.effect_size).toBeCloseTo(
        (hits - trials * p0) / Math.sqrt(trials * p0 * (1 - p0)) / Math.sqrt(trials),
        5,
      );
      expect(result.confidence).toBe(roundTo(calibratedTrackRecord(hits, trials, p0)));
      expect(result.baseline).toBe(roundTo(p0));
      const [low, high] = result.confidence_interval;
      expect(low).toBeLessThanOrEqual(hits / trials);
      expect(high).toBeGreaterThanOrEqual(hits / trials);
      for (const value of result.chart_data.readings) {
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
      expect(result.chart_data.interpretation).toContain(
        `p = ${roundSignificant(result.statistical_significance.p_value, 2)}`,
      );
      expect(result.additional_insights[0]).toMatch(
        new RegExp(`^${trials} (readings|passes); ${hits} matched the synthetic truth`),
      );
      expect(JSON.parse(JSON.stringify(result))).toEqual(result);
    });
  });

  it('answers yes/no on the pendulum', () => {
    const { result } = completed(EXAMPLES['yes_no']!);
    expect(YES_NO_ANSWERS).toContain(result.answer);
    expect(result.chart_data.chart_type).toBe('pendulum');
    expect(result.chart_data.readings).toHaveLength(12);
    for (const value of result.chart_data.readings) expect([0, 0.5, 1]).toContain(value);
    expect(result.baseline).toBe(0.333333);
    expect(result.coordinates).toBeUndefined();
    expect(result.locations).toEqual([]);
    expect(result.variant_result).toBeNull();
  });

  it('answers information from the compass sectors, or from the options given', () => {
    const sectors = completed(EXAMPLES['information']!).result;
    expect(COMPASS_SECTORS).toContain(sectors.answer);
    expect(sectors.chart_data.chart_type).toBe('radar');
    expect(sectors.baseline).toBe(0.125);
    const options = ['oak', 'ash', 'beech', 'birch', 'elm'];
    const given = completed(
      request({
        queryType: 'information',
        precisionLevel: 'high',
        context: { parameters: { options } },
      }),
    );
    expect(options).toContain(given.result.answer);
    expect(given.result.baseline).toBe(0.2);
    expect(given.judging.trials).toBe(24);
    expect(given.result.additional_insights[1]).toBe(
      'Answered from the 5 options in context.parameters.options.',
    );
    expect(() =>
      engine.outcome(
        request({ queryType: 'information', context: { parameters: { options: ['one'] } } }),
        ORG_SEED,
      ),
    ).toThrow(/context\.parameters\.options must hold 2 to 100/);
  });

  it.each([
    ['standard', 12, 250, 0.0625],
    ['high', 24, 100, 0.01],
    ['maximum', 48, 50, 0.0025],
  ] as const)(
    'answers a location query at %s precision with %i readings, accuracy %i m, baseline %f',
    (precisionLevel, readings, accuracy, baseline) => {
      const outcome = completed(
        request({ queryType: 'location', precisionLevel, context: { location: BERLIN } }),
      );
      const { result } = outcome;
      expect(result.statistical_significance.sample_size).toBe(readings);
      expect(result.chart_data.readings).toHaveLength(readings);
      expect(result.chart_data.chart_type).toBe('divining_rod');
      expect(result.baseline).toBe(baseline);
      expect(result.coordinates!.accuracy_meters).toBe(accuracy);
      expect(result.answer).toBe(
        `${result.coordinates!.latitude}, ${result.coordinates!.longitude}`,
      );
      expect(haversineMeters(BERLIN, result.coordinates!)).toBeLessThanOrEqual(1_000);
      expect(result.locations).toEqual([
        {
          coordinates: { lat: result.coordinates!.latitude, lng: result.coordinates!.longitude },
          confidence: result.confidence,
          confidence_interval: result.confidence_interval,
          energy_signature: 'unmeasured',
          depth_meters: null,
          material_composition: [],
        },
      ]);
      expect(outcome.readings).toEqual([
        {
          latitude: result.coordinates!.latitude,
          longitude: result.coordinates!.longitude,
          confidence: result.confidence,
        },
      ]);
    },
  );

  it('needs the search circle for a location query', () => {
    expect(() => engine.outcome(request({ queryType: 'location' }), ORG_SEED)).toThrow(
      /context\.location/,
    );
  });

  it('ranks multi_point points by the readings that chose them', () => {
    const outcome = completed(EXAMPLES['multi_point']!);
    const result = outcome.result;
    const vr = result.variant_result as {
      points: {
        name: string;
        latitude: number;
        longitude: number;
        reading: number;
        confidence: number;
      }[];
      strongest: string;
    };
    expect(vr.points.map((p) => p.name)).toEqual(['Well A', 'Well B', 'Well C']);
    expect(units(vr.points.map((p) => p.confidence))).toBe(1_000_000);
    expect(vr.points.reduce((s, p) => s + p.reading, 0)).toBeCloseTo(1, 5);
    const strongest = vr.points.find((p) => p.name === vr.strongest)!;
    expect(Math.max(...vr.points.map((p) => p.reading))).toBe(strongest.reading);
    expect(result.answer).toBe(vr.strongest);
    expect(result.coordinates).toEqual({
      latitude: strongest.latitude,
      longitude: strongest.longitude,
      accuracy_meters: 0,
    });
    expect(result.baseline).toBe(0.333333);
    expect(result.locations.map((l) => l.confidence)).toEqual(vr.points.map((p) => p.confidence));
    expect(outcome.readings).toHaveLength(3);
  });

  it('maps energy over the grid, row 0 north and column 0 west', () => {
    const outcome = completed(EXAMPLES['energy_map']!);
    const vr = outcome.result.variant_result as {
      grid: {
        rows: number;
        columns: number;
        cells: number[][];
        cell_size_meters: { north_south: number; east_west: number };
      };
      strongest_cell: { row: number; column: number; latitude: number; longitude: number };
    };
    expect(vr.grid.cells).toHaveLength(4);
    for (const row of vr.grid.cells) expect(row).toHaveLength(5);
    expect(vr.grid.cells.flat().reduce((s, c) => s + c, 0)).toBeCloseTo(1, 5);
    const { row, column } = vr.strongest_cell;
    expect(vr.grid.cells[row]![column]).toBe(Math.max(...vr.grid.cells.flat()));
    expect(outcome.result.answer).toBe(`row ${row}, column ${column}`);
    // 0.1° of latitude over 4 rows; 0.2° of longitude over 5 columns at 52.55°.
    expect(vr.grid.cell_size_meters.north_south).toBeCloseTo(2_779.88, 1);
    expect(vr.grid.cell_size_meters.east_west).toBeCloseTo(2_704.57, 1);
    expect(vr.strongest_cell.latitude).toBeCloseTo(52.6 - (row + 0.5) * 0.025, 6);
    expect(vr.strongest_cell.longitude).toBeCloseTo(13.3 + (column + 0.5) * 0.04, 6);
    expect(outcome.result.baseline).toBe(0.05);
    expect(outcome.readings).toHaveLength(20);
    expect(outcome.result.coordinates!.accuracy_meters).toBeGreaterThan(1_900);
    expect(outcome.result.coordinates!.accuracy_meters).toBeLessThan(2_000);
  });

  it('lays an energy map across the antimeridian', () => {
    const outcome = completed(
      variant({
        variant: 'energy_map',
        bounds: { south: -17, west: 179.5, north: -16, east: -179.5 },
        grid: { rows: 2, columns: 4 },
      }),
    );
    const longitudes = outcome.readings.map((r) => r.longitude);
    // Four columns of 0.25° from 179.5° E: centres on both sides of the antimeridian.
    expect([...new Set(longitudes)].sort((a, b) => a - b)).toEqual([
      -179.875, -179.625, 179.625, 179.875,
    ]);
    for (const r of outcome.readings)
      expect(r.latitude === -16.25 || r.latitude === -16.75).toBe(true);
  });

  it('puts the depth inside an interval within 0..max whose share is the baseline', () => {
    for (const precisionLevel of ['standard', 'high', 'maximum'] as const) {
      for (let i = 0; i < 50; i++) {
        const { result } = completed(
          variant(
            { variant: 'depth_analysis', point: POINT, max_depth_meters: 30 },
            { precisionLevel, question: `depth ${i}` },
          ),
        );
        const vr = result.variant_result as {
          depth_meters: number;
          depth_interval_meters: [number, number];
        };
        const [low, high] = vr.depth_interval_meters;
        expect(low).toBeGreaterThanOrEqual(0);
        expect(high).toBeLessThanOrEqual(30);
        expect(vr.depth_meters).toBeGreaterThanOrEqual(low);
        expect(vr.depth_meters).toBeLessThanOrEqual(high);
        expect((high - low) / 30).toBeCloseTo(result.baseline, 3);
        expect(result.answer).toBe(`${vr.depth_meters} m`);
        expect(result.locations[0]!.depth_meters).toBe(vr.depth_meters);
      }
    }
  });

  it('identifies materials from the vocabulary, or from the candidates given, with probabilities adding up to 1', () => {
    const all = completed(EXAMPLES['material_identification']!).result;
    const ranked = (
      all.variant_result as { candidates: { material: string; probability: number }[] }
    ).candidates;
    expect(ranked.map((c) => c.material).sort()).toEqual([...MATERIALS].sort());
    expect(units(ranked.map((c) => c.probability))).toBe(1_000_000);
    for (let i = 1; i < ranked.length; i++) {
      expect(ranked[i]!.probability).toBeLessThanOrEqual(ranked[i - 1]!.probability);
    }
    expect(all.answer).toBe(ranked[0]!.material);
    expect(all.locations[0]!.material_composition[0]).toBe(all.answer);
    expect(all.additional_insights).toContain(
      'The sample description was not analysed: the simulated readings do not use it.',
    );

    const narrowed = completed(
      variant({
        variant: 'material_identification',
        point: null,
        sample_description: null,
        candidates: ['gold', 'copper'],
      }),
    );
    const two = (narrowed.result.variant_result as { candidates: { material: string }[] })
      .candidates;
    expect(two.map((c) => c.material).sort()).toEqual(['copper', 'gold']);
    expect(narrowed.result.baseline).toBe(0.5);
    expect(narrowed.result.locations).toEqual([]);
    expect(narrowed.readings).toEqual([]);
    expect(() =>
      engine.outcome(
        variant({
          variant: 'material_identification',
          point: null,
          sample_description: null,
          candidates: ['gold', 'kryptonite'],
        }),
        ORG_SEED,
      ),
    ).toThrow(/candidates: "kryptonite" is not one of/);
  });

  it('analyses a chart of the given type, strengths in the options’ order adding up to 1', () => {
    const options = Array.from({ length: 100 }, (_, i) => `option ${i}`);
    const { result } = completed(
      variant(
        { variant: 'chart_analysis', chart_type: 'pendulum', options },
        { queryType: 'yes_no' },
      ),
    );
    const vr = result.variant_result as {
      chosen_option: string;
      option_strengths: { option: string; strength: number }[];
    };
    expect(result.chart_data.chart_type).toBe('pendulum');
    expect(vr.option_strengths.map((s) => s.option)).toEqual(options);
    expect(units(vr.option_strengths.map((s) => s.strength))).toBe(1_000_000);
    expect(result.answer).toBe(vr.chosen_option);
    const chosen = vr.option_strengths.find((s) => s.option === vr.chosen_option)!;
    expect(chosen.strength).toBe(Math.max(...vr.option_strengths.map((s) => s.strength)));
    expect(result.baseline).toBe(0.01);
  });

  it('finds up to max_candidates places, best first, with the union baseline of a pass', () => {
    const outcome = completed(EXAMPLES['location_finding']!);
    const vr = outcome.result.variant_result as {
      candidates: {
        latitude: number;
        longitude: number;
        accuracy_meters: number;
        confidence: number;
      }[];
    };
    expect(vr.candidates.length).toBeGreaterThanOrEqual(1);
    expect(vr.candidates.length).toBeLessThanOrEqual(3);
    for (const c of vr.candidates) {
      expect(c.accuracy_meters).toBe(250);
      expect(haversineMeters(BERLIN, c)).toBeLessThanOrEqual(1_000);
    }
    for (let i = 1; i < vr.candidates.length; i++) {
      expect(vr.candidates[i]!.confidence).toBeLessThanOrEqual(vr.candidates[i - 1]!.confidence);
    }
    expect(outcome.result.coordinates).toEqual({
      latitude: vr.candidates[0]!.latitude,
      longitude: vr.candidates[0]!.longitude,
      accuracy_meters: 250,
    });
    // Three marks a pass, each covering 6.25 % of the area: 1 − 0.9375³.
    expect(outcome.judging.p0).toBeCloseTo(1 - 0.9375 ** 3, 12);
    expect(outcome.result.chart_data.readings).toHaveLength(36);
    expect(outcome.readings).toHaveLength(vr.candidates.length);
  });

  it('detects an energy signature at a point over the window', () => {
    const { result } = completed(EXAMPLES['energy_detection']!);
    const vr = result.variant_result as {
      signal_strength: number;
      energy_signature: string;
      window: { from: string; to: string };
    };
    expect(ENERGY_SIGNATURES).toContain(vr.energy_signature);
    expect(result.answer).toBe(vr.energy_signature);
    expect(vr.signal_strength).toBeGreaterThan(0);
    expect(vr.signal_strength).toBeLessThanOrEqual(1);
    expect(vr.window).toEqual({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' });
    expect(result.locations[0]!.energy_signature).toBe(vr.energy_signature);
    expect(result.baseline).toBe(0.125);
  });

  it('fails on [fail] and [timeout] in the question, and ignores [slow]', () => {
    expect(engine.outcome(request({ question: 'Water? [FAIL]' }), ORG_SEED)).toMatchObject({
      status: 'failed',
      reason: 'engine_failure',
      engine: 'simulated',
    });
    expect(engine.outcome(request({ question: 'Water? [timeout]' }), ORG_SEED)).toMatchObject({
      status: 'failed',
      reason: 'deadline_exceeded',
    });
    expect(engine.outcome(request({ question: 'Water? [slow]' }), ORG_SEED).status).toBe(
      'completed',
    );
  });

  it('words its note after the mode: a sandbox simulation, or live work on the simulated engine', async () => {
    const req = EXAMPLES['yes_no']!;
    const inMode = async (mode: 'test' | 'live') => {
      const outcome = await engine.run(req, ORG_SEED, null, mode);
      if (outcome.status !== 'completed') throw new Error('expected completed');
      return outcome;
    };
    const sandbox = await inMode('test');
    const live = await inMode('live');
    expect(sandbox.result.additional_insights.at(-1)).toMatch(/^Sandbox simulation: /);
    expect(live.result.additional_insights.at(-1)).toMatch(
      /^Simulated engine: this live query was answered by the simulated engine, not by analysts/,
    );
    expect(live.result.additional_insights.join(' ')).not.toMatch(/sandbox/i);
    // Only the wording differs: the answer is the same function of the request.
    expect(live.result.additional_insights.slice(0, -1)).toEqual(
      sandbox.result.additional_insights.slice(0, -1),
    );
    expect({ ...live.result, additional_insights: [] }).toEqual({
      ...sandbox.result,
      additional_insights: [],
    });
  });
});

describe('located answers stay inside their circle', () => {
  const circles: [string, SearchCircle][] = [
    ['around the north pole', { latitude: 89.95, longitude: 0, radius_meters: 20_000 }],
    [
      'far south, across the antimeridian',
      { latitude: -84, longitude: 179.99, radius_meters: 150_000 },
    ],
    [
      'at 70° N across the antimeridian',
      { latitude: 70, longitude: -179.999, radius_meters: 500_000 },
    ],
    ['at the equator', { latitude: 0, longitude: 0, radius_meters: 5_000 }],
    ['narrower than rounding', { latitude: 45.1234567, longitude: 7.7654321, radius_meters: 0.05 }],
  ];

  it.each(circles)('%s', (_, circle) => {
    for (let i = 0; i < 150; i++) {
      const precisionLevel = (['standard', 'high', 'maximum'] as const)[i % 3];
      const located = [
        completed(
          request({
            queryType: 'location',
            question: `where ${i}`,
            precisionLevel,
            context: { location: circle },
          }),
        ),
        completed(
          variant(
            { variant: 'location_finding', area: circle, sought: 'cache', max_candidates: 4 },
            { question: `find ${i}`, precisionLevel },
          ),
        ),
      ];
      for (const outcome of located) {
        const points = [
          outcome.result.coordinates!,
          ...outcome.readings,
          ...outcome.result.locations.map((l) => ({
            latitude: l.coordinates.lat,
            longitude: l.coordinates.lng,
          })),
        ];
        for (const point of points) {
          expect(haversineMeters(circle, point)).toBeLessThanOrEqual(circle.radius_meters);
          expect(Math.abs(point.latitude)).toBeLessThanOrEqual(90);
          expect(point.longitude).toBeGreaterThanOrEqual(-180);
          expect(point.longitude).toBeLessThan(180);
        }
      }
    }
  });
});
