import { describe, expect, it } from 'vitest';
import { newId } from '#common';
import type { EventEnvelope } from '#events';
import {
  errorMessage,
  parseClientMessage,
  subscribedMessage,
  toAnalysisUpdate,
  toLiveUpdate,
  toSessionUpdate,
  topicOf,
  unsubscribedMessage,
} from './session-update-messages.js';
import { parseRelayedEvent } from './relayed-events.js';

const SESSION = newId('session');
const ANALYSIS = newId('analysis');
const EVENT = newId('event');

function envelope(type: string, data: Record<string, unknown>): EventEnvelope {
  return {
    id: EVENT,
    type,
    created_at: '2025-01-01T00:00:00.000Z',
    data,
    livemode: true,
    pending_webhooks: 0,
  };
}

describe('live update messages', () => {
  it('read subscribe and unsubscribe commands', () => {
    expect(parseClientMessage(`{"type":"subscribe","session_id":"${SESSION}"}`)).toEqual({
      type: 'subscribe',
      sessionId: SESSION,
    });
    expect(parseClientMessage('{"type":"unsubscribe","session_id":"*"}')).toEqual({
      type: 'unsubscribe',
      sessionId: '*',
    });
  });

  it.each([
    ['{nope', /not valid JSON/],
    ['[1]', /JSON object/],
    ['{"session_id":"*"}', /needs a "type"/],
    ['{"type":"shout","session_id":"*"}', /Unknown message type "shout"/],
    ['{"type":"subscribe"}', /"session_id" must be/],
    ['{"type":"subscribe","session_id":"sess_nope"}', /"session_id" must be/],
    [`{"type":"subscribe","session_id":"${SESSION.replace('sess', 'evt')}"}`, /"session_id"/],
  ])('answer %s with an INVALID_REQUEST error', (text, message) => {
    const answer = parseClientMessage(text);
    expect(answer).toMatchObject({ type: 'error', error: { code: 'INVALID_REQUEST' } });
    expect((answer as { error: { message: string } }).error.message).toMatch(message);
  });

  it('map progress, completion and failure events, and nothing else', () => {
    expect(
      toSessionUpdate(
        envelope('session.progress_updated', {
          session_id: SESSION,
          type: 'remote_viewing',
          status: 'in_progress',
          progress: 40,
          current_phase: 'data_collection',
          sequence: 6,
        }),
      ),
    ).toEqual({
      type: 'session.progress',
      session_id: SESSION,
      progress: 40,
      current_phase: 'data_collection',
      sequence: 6,
      event_id: EVENT,
    });
    const results = { coordinates: { latitude: 1, longitude: 2 }, descriptors: [], sketches: [] };
    expect(
      toSessionUpdate(
        envelope('session.completed', {
          session_id: SESSION,
          results,
          confidence_score: 0.5,
          completed_at: '2025-01-01T00:00:01.000Z',
          sequence: 13,
        }),
      ),
    ).toMatchObject({ type: 'session.completed', results, confidence_score: 0.5, sequence: 13 });
    expect(
      toSessionUpdate(
        envelope('session.failed', {
          session_id: SESSION,
          reason: 'engine_failure',
          message: 'The engine failed',
          failed_at: '2025-01-01T00:00:01.000Z',
          sequence: 7,
        }),
      ),
    ).toMatchObject({
      type: 'session.error',
      error: { code: 'engine_failure', message: 'The engine failed' },
      failed_at: '2025-01-01T00:00:01.000Z',
    });
    expect(toSessionUpdate(envelope('session.started', { session_id: SESSION }))).toBeNull();
  });

  it('accept only well-formed events-channel messages', () => {
    const event = envelope('session.started', { session_id: SESSION });
    expect(parseRelayedEvent(JSON.stringify({ organizationId: 'o', mode: 'test', event }))).toEqual(
      { organizationId: 'o', mode: 'test', event },
    );
    expect(parseRelayedEvent('nope')).toBeNull();
    expect(parseRelayedEvent('null')).toBeNull();
    expect(parseRelayedEvent(JSON.stringify({ organizationId: 'o', mode: 'x', event }))).toBeNull();
    expect(parseRelayedEvent(JSON.stringify({ organizationId: 'o', mode: 'live' }))).toBeNull();
  });

  it('read analysis subscriptions, and exactly one of session_id / analysis_id', () => {
    expect(parseClientMessage(`{"type":"subscribe","analysis_id":"${ANALYSIS}"}`)).toEqual({
      type: 'subscribe',
      analysisId: ANALYSIS,
    });
    expect(parseClientMessage('{"type":"unsubscribe","analysis_id":"*"}')).toEqual({
      type: 'unsubscribe',
      analysisId: '*',
    });
    expect(topicOf({ type: 'subscribe', sessionId: '*' })).toEqual({ kind: 'session', id: '*' });
    expect(topicOf({ type: 'unsubscribe', analysisId: ANALYSIS })).toEqual({
      kind: 'analysis',
      id: ANALYSIS,
    });
  });

  it.each([
    [
      `{"type":"subscribe","session_id":"*","analysis_id":"*"}`,
      /either "session_id" or "analysis_id", not both/,
    ],
    [`{"type":"subscribe","session_id":null,"analysis_id":"${ANALYSIS}"}`, /not both/],
    ['{"type":"subscribe"}', /needs "session_id" or "analysis_id"/],
    ['{"type":"subscribe","analysis_id":null}', /"analysis_id" must be an analysis id/],
    ['{"type":"subscribe","analysis_id":"anal_nope"}', /"analysis_id" must be/],
    [`{"type":"subscribe","analysis_id":"${SESSION}"}`, /"analysis_id" must be/],
    [`{"type":"subscribe","session_id":"${ANALYSIS}"}`, /"session_id" must be a session id/],
  ])('answer %s with an INVALID_REQUEST error', (text, message) => {
    const answer = parseClientMessage(text);
    expect(answer).toMatchObject({ type: 'error', error: { code: 'INVALID_REQUEST' } });
    expect((answer as { error: { message: string } }).error.message).toMatch(message);
  });

  it('name the session or analysis in replies and errors', () => {
    const session = { kind: 'session', id: SESSION } as const;
    const analysis = { kind: 'analysis', id: ANALYSIS } as const;
    expect(subscribedMessage({ kind: 'analysis', id: '*' })).toEqual({
      type: 'subscribed',
      analysis_id: '*',
    });
    expect(subscribedMessage({ kind: 'session', id: '*' })).toEqual({
      type: 'subscribed',
      session_id: '*',
    });
    expect(unsubscribedMessage(analysis)).toEqual({ type: 'unsubscribed', analysis_id: ANALYSIS });
    expect(unsubscribedMessage(session)).toEqual({ type: 'unsubscribed', session_id: SESSION });
    expect(errorMessage('NOT_FOUND', 'gone', analysis)).toEqual({
      type: 'error',
      analysis_id: ANALYSIS,
      error: { code: 'NOT_FOUND', message: 'gone' },
    });
    expect(errorMessage('NOT_FOUND', 'gone', session)).toEqual({
      type: 'error',
      session_id: SESSION,
      error: { code: 'NOT_FOUND', message: 'gone' },
    });
    expect(errorMessage('INVALID_REQUEST', 'bad')).toEqual({
      type: 'error',
      error: { code: 'INVALID_REQUEST', message: 'bad' },
    });
  });

  it('map analysis start, progress, completion and failure events, and nothing else', () => {
    const base = { analysis_id: ANALYSIS, target_type: 'location' };
    expect(
      toAnalysisUpdate(
        envelope('analysis.started', {
          ...base,
          status: 'processing',
          started_at: '2025-01-01T00:00:00.500Z',
          sequence: 2,
        }),
      ),
    ).toEqual({
      type: 'analysis.started',
      analysis_id: ANALYSIS,
      started_at: '2025-01-01T00:00:00.500Z',
      sequence: 2,
      event_id: EVENT,
    });
    expect(
      toAnalysisUpdate(
        envelope('analysis.progress_updated', {
          ...base,
          status: 'processing',
          progress: 33,
          current_step: 'reading_material',
          sequence: 3,
        }),
      ),
    ).toEqual({
      type: 'analysis.progress',
      analysis_id: ANALYSIS,
      progress: 33,
      current_step: 'reading_material',
      sequence: 3,
      event_id: EVENT,
    });
    const results = {
      summary: 'A summary',
      key_findings: ['one'],
      risk_assessment: { level: 'low', factors: [] },
    };
    expect(
      toAnalysisUpdate(
        envelope('analysis.completed', {
          ...base,
          status: 'completed',
          confidence_score: 0.4,
          results,
          processing_time: '4.2 seconds',
          processing_time_ms: 4_200,
          completed_at: '2025-01-01T00:00:05.000Z',
          sequence: 5,
        }),
      ),
    ).toEqual({
      type: 'analysis.completed',
      analysis_id: ANALYSIS,
      confidence_score: 0.4,
      results,
      processing_time: '4.2 seconds',
      completed_at: '2025-01-01T00:00:05.000Z',
      sequence: 5,
      event_id: EVENT,
    });
    expect(
      toAnalysisUpdate(
        envelope('analysis.failed', {
          ...base,
          status: 'failed',
          reason: 'engine_failure',
          message: 'The engine failed',
          failed_at: '2025-01-01T00:00:01.000Z',
          sequence: 4,
        }),
      ),
    ).toEqual({
      type: 'analysis.error',
      analysis_id: ANALYSIS,
      error: { code: 'engine_failure', message: 'The engine failed' },
      failed_at: '2025-01-01T00:00:01.000Z',
      sequence: 4,
      event_id: EVENT,
    });
    expect(toAnalysisUpdate(envelope('analysis.created', { ...base, sequence: 1 }))).toBeNull();
    expect(toAnalysisUpdate(envelope('session.completed', { session_id: SESSION }))).toBeNull();
    expect(toSessionUpdate(envelope('analysis.failed', { ...base, sequence: 4 }))).toBeNull();
  });

  it('route each update by its kind and id', () => {
    const progress = envelope('analysis.progress_updated', {
      analysis_id: ANALYSIS,
      progress: 50,
      current_step: 'assessing',
      sequence: 3,
    });
    expect(toLiveUpdate(progress)).toEqual({
      topic: { kind: 'analysis', id: ANALYSIS },
      update: expect.objectContaining({ type: 'analysis.progress' }),
    });
    const sessionProgress = envelope('session.progress_updated', {
      session_id: SESSION,
      progress: 10,
      current_phase: 'initiated',
      sequence: 2,
    });
    expect(toLiveUpdate(sessionProgress)).toEqual({
      topic: { kind: 'session', id: SESSION },
      update: expect.objectContaining({ type: 'session.progress' }),
    });
    expect(toLiveUpdate(envelope('session.started', { session_id: SESSION }))).toBeNull();
    expect(toLiveUpdate(envelope('webhook.failed', { webhook_id: 'wh' }))).toBeNull();
  });
});
