import { describe, expect, it } from 'vitest';
import { newId } from '#common';
import type { EventEnvelope } from '#events';
import {
  parseClientMessage,
  parseRelayedEvent,
  toSessionUpdate,
} from './session-update-messages.js';

const SESSION = newId('session');
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
});
