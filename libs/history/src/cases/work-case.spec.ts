import { describe, expect, it } from 'vitest';
import {
  analysisCase,
  dowsingQueryCase,
  sessionCase,
  type FinishedAnalysis,
  type FinishedDowsingQuery,
  type FinishedSession,
} from './work-case.js';

const tenant = { organizationId: '0190a0b0-0000-7000-8000-000000000001', mode: 'live' as const };
const created = new Date('2026-01-01T10:00:00Z');
const completed = new Date('2026-01-01T10:45:31Z');

const session = (over: Partial<FinishedSession> = {}): FinishedSession => ({
  ...tenant,
  id: 'session-1',
  type: 'remote_viewing',
  target: 'A bridge',
  modality: 'visual',
  durationMinutes: 30,
  privacyLevel: 'private',
  status: 'completed',
  results: {
    descriptors: ['metal', 'water'],
    sketches: [{ description: 'arch' }, { description: null }, { description: 'river' }],
    coordinates: { latitude: 51.5, longitude: '-0.12' },
  },
  confidenceScore: 0.4,
  analystId: 'analyst-7',
  failureReason: null,
  updatedAt: new Date('2026-01-01T11:00:00Z'),
  completedAt: completed,
  ...over,
});

describe('sessionCase', () => {
  it('maps a completed session as the trigger did', () => {
    expect(sessionCase(session())).toEqual({
      tenant,
      sourceType: 'session',
      sourceId: 'session-1',
      type: 'remote_viewing',
      subtype: 'visual',
      workStatus: 'completed',
      classified: false,
      date: completed,
      target: 'A bridge',
      analysts: ['analyst-7'],
      durationMinutes: 30,
      modality: 'visual',
      phases: ['data_collection', 'analysis', 'validation'],
      descriptors: ['metal', 'water'],
      description: 'arch river',
      latitude: 51.5,
      longitude: -0.12,
      confidenceScore: 0.4,
      chanceBaseline: null,
    });
  });

  it('names the collaborators of a merged session instead of its own analyst', () => {
    const merged = session({
      results: { collaborative_insights: [{ analyst_id: 'a' }, { analyst_id: 'b' }, {}] },
    });
    expect(sessionCase(merged).analysts).toEqual(['a', 'b', null]);
  });

  it('says why a failed session failed, and dates it by its last change', () => {
    const updatedAt = new Date('2026-01-02T00:00:00Z');
    const failed = sessionCase(
      session({
        status: 'failed',
        results: null,
        failureReason: 'engine_timeout',
        completedAt: null,
        updatedAt,
        analystId: null,
      }),
    );
    expect(failed).toMatchObject({
      date: updatedAt,
      phases: ['data_collection'],
      description: 'Failed: engine_timeout',
      descriptors: [],
      analysts: [],
      latitude: null,
    });
    expect(sessionCase(session({ status: 'failed', results: null })).description).toBe(
      'Failed: unknown',
    );
  });

  it('marks a classified session', () => {
    expect(sessionCase(session({ privacyLevel: 'classified' })).classified).toBe(true);
  });
});

const analysis = (over: Partial<FinishedAnalysis> = {}): FinishedAnalysis => ({
  ...tenant,
  id: 'analysis-1',
  targetType: 'location',
  analysisType: 'comprehensive',
  description: 'The old mill',
  latitude: 10,
  longitude: 20,
  status: 'completed',
  stepsDone: 2,
  steps: ['read_material', 'cross_reference', 'score'],
  results: { summary: 'Likely water nearby', descriptors: ['wet', 7] },
  scoreDetails: { judging: { p0: 0.25 } },
  confidenceScore: 0.6,
  failureReason: null,
  failureMessage: null,
  createdAt: created,
  updatedAt: completed,
  completedAt: completed,
  ...over,
});

describe('analysisCase', () => {
  it('maps a completed analysis as the trigger did', () => {
    expect(analysisCase(analysis())).toEqual({
      tenant,
      sourceType: 'analysis',
      sourceId: 'analysis-1',
      type: 'analysis',
      subtype: 'comprehensive',
      workStatus: 'completed',
      classified: false,
      date: completed,
      target: 'The old mill',
      analysts: [],
      durationMinutes: 46, // 45 min 31 s, rounded
      modality: 'comprehensive',
      phases: ['read_material', 'cross_reference'],
      descriptors: ['wet', '7'],
      description: 'Likely water nearby',
      latitude: 10,
      longitude: 20,
      confidenceScore: 0.6,
      chanceBaseline: 0.25,
    });
  });

  it('names the target type when there is no description, and keeps 1,000 characters', () => {
    expect(analysisCase(analysis({ description: '' })).target).toBe('location target');
    const long = '𝄞'.repeat(1200);
    expect(Array.from(analysisCase(analysis({ description: long })).target)).toHaveLength(1000);
  });

  it('describes a failure by its message, else its reason', () => {
    const failed = { status: 'failed', results: null, steps: null, scoreDetails: null };
    expect(
      analysisCase(analysis({ ...failed, failureMessage: 'no material', failureReason: 'x' })),
    ).toMatchObject({ description: 'Failed: no material', phases: [], chanceBaseline: null });
    expect(analysisCase(analysis({ ...failed, failureReason: 'engine_error' })).description).toBe(
      'Failed: engine_error',
    );
  });

  it('never counts negative minutes', () => {
    const earlier = new Date(created.getTime() - 5 * 60_000);
    expect(analysisCase(analysis({ completedAt: earlier })).durationMinutes).toBe(0);
  });
});

const query = (over: Partial<FinishedDowsingQuery> = {}): FinishedDowsingQuery => ({
  ...tenant,
  id: 'query-1',
  variant: 'map',
  queryType: 'location',
  question: 'Where are the keys?',
  context: { location: { latitude: 1, longitude: 2 } },
  status: 'completed',
  result: {
    answer: 'Kitchen drawer',
    coordinates: { latitude: 3, longitude: 4 },
    baseline: 0.1,
    chart_data: { chart_type: 'grid' },
  },
  confidence: 0.7,
  failureReason: null,
  failureMessage: null,
  createdAt: created,
  updatedAt: completed,
  completedAt: completed,
  ...over,
});

describe('dowsingQueryCase', () => {
  it('maps an answered query as the trigger did', () => {
    expect(dowsingQueryCase(query())).toEqual({
      tenant,
      sourceType: 'dowsing_query',
      sourceId: 'query-1',
      type: 'dowsing',
      subtype: 'location',
      workStatus: 'completed',
      classified: false,
      date: completed,
      target: 'Where are the keys?',
      analysts: [],
      durationMinutes: 46,
      modality: 'grid',
      phases: ['map'],
      descriptors: [],
      description: 'Kitchen drawer',
      latitude: 3,
      longitude: 4,
      confidenceScore: 0.7,
      chanceBaseline: 0.1,
    });
  });

  it('falls back to the asked location and the variant', () => {
    const plain = dowsingQueryCase(query({ result: { answer: 'yes' } }));
    expect(plain).toMatchObject({ latitude: 1, longitude: 2, modality: 'map' });
    const nowhere = dowsingQueryCase(query({ result: null, context: {}, status: 'failed' }));
    expect(nowhere).toMatchObject({
      latitude: null,
      longitude: null,
      description: 'Failed: unknown',
    });
  });
});
