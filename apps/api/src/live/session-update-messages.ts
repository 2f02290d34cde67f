import { MODES, parsePublicId, type ErrorCode, type Mode } from '#common';
import type { EventDataMap, EventEnvelope, RelayedEvent } from '#events';

/**
 * The live-update protocol (JSON text frames on /v1/sessions/ws), as pure
 * functions: what clients may send, what the server answers, and how relayed
 * session events become the spec's `session.progress` / `session.completed` /
 * `session.error` messages.
 */

/** A subscription to every session of the caller's organisation and mode. */
export const ALL_SESSIONS = '*';

export interface ClientCommand {
  type: 'subscribe' | 'unsubscribe';
  /** A session id (`sess_…`) or `*`. */
  sessionId: string;
}

export interface ProtocolError {
  code: ErrorCode;
  message: string;
}

export type SessionUpdate =
  | {
      type: 'session.progress';
      session_id: string;
      progress: number;
      current_phase: string;
      sequence: number;
      event_id: string;
    }
  | {
      type: 'session.completed';
      session_id: string;
      results: EventDataMap['session.completed']['results'];
      confidence_score: number;
      completed_at: string;
      sequence: number;
      event_id: string;
    }
  | {
      type: 'session.error';
      session_id: string;
      error: { code: string; message: string };
      failed_at: string;
      sequence: number;
      event_id: string;
    };

/** Where a session stood when the subscription began (updates with a higher `sequence` follow). */
export interface SessionSnapshot {
  status: string;
  progress: number;
  current_phase: string;
  sequence: number;
}

export type ServerMessage =
  | ({ type: 'subscribed'; session_id: string } & Partial<SessionSnapshot>)
  | { type: 'unsubscribed'; session_id: string }
  | { type: 'error'; session_id?: string; error: ProtocolError }
  | SessionUpdate;

export function errorMessage(
  code: ErrorCode,
  message: string,
  sessionId?: string,
): Extract<ServerMessage, { type: 'error' }> {
  return sessionId === undefined
    ? { type: 'error', error: { code, message } }
    : { type: 'error', session_id: sessionId, error: { code, message } };
}

/** A client's text frame → its command, or the error to answer (the connection stays open). */
export function parseClientMessage(
  text: string,
): ClientCommand | Extract<ServerMessage, { type: 'error' }> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorMessage('INVALID_REQUEST', 'The message is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return errorMessage('INVALID_REQUEST', 'The message must be a JSON object with a "type"');
  }
  const { type, session_id: sessionId } = value as Record<string, unknown>;
  if (type !== 'subscribe' && type !== 'unsubscribe') {
    return errorMessage(
      'INVALID_REQUEST',
      typeof type === 'string'
        ? `Unknown message type "${type.slice(0, 64)}"; expected "subscribe" or "unsubscribe"`
        : 'The message needs a "type": "subscribe" or "unsubscribe"',
    );
  }
  if (
    typeof sessionId !== 'string' ||
    (sessionId !== ALL_SESSIONS && parsePublicId('session', sessionId) === null)
  ) {
    return errorMessage(
      'INVALID_REQUEST',
      `"session_id" must be a session id (sess_…) or "${ALL_SESSIONS}"`,
    );
  }
  return { type, sessionId };
}

/** The update a relayed event becomes, or null for events live updates do not carry. */
export function toSessionUpdate(event: EventEnvelope): SessionUpdate | null {
  switch (event.type) {
    case 'session.progress_updated': {
      const data = event.data as unknown as EventDataMap['session.progress_updated'];
      return {
        type: 'session.progress',
        session_id: data.session_id,
        progress: data.progress,
        current_phase: data.current_phase,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    case 'session.completed': {
      const data = event.data as unknown as EventDataMap['session.completed'];
      return {
        type: 'session.completed',
        session_id: data.session_id,
        results: data.results,
        confidence_score: data.confidence_score,
        completed_at: data.completed_at,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    case 'session.failed': {
      const data = event.data as unknown as EventDataMap['session.failed'];
      return {
        type: 'session.error',
        session_id: data.session_id,
        error: { code: data.reason, message: data.message },
        failed_at: data.failed_at,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    default:
      return null;
  }
}

/** A message of the events channel, or null when it is not shaped like one (it is then dropped). */
export function parseRelayedEvent(text: string): RelayedEvent | null {
  let value: Partial<RelayedEvent>;
  try {
    value = JSON.parse(text) as Partial<RelayedEvent>;
  } catch {
    return null;
  }
  const { organizationId, mode, event } = value ?? {};
  if (
    typeof organizationId !== 'string' ||
    !(MODES as readonly unknown[]).includes(mode) ||
    typeof event?.id !== 'string' ||
    typeof event.type !== 'string' ||
    typeof event.data !== 'object' ||
    event.data === null
  ) {
    return null;
  }
  return { organizationId, mode: mode as Mode, event };
}
