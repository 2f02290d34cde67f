import { parsePublicId, type ErrorCode } from '#common';
import type { EventDataMap, EventEnvelope } from '#events';

/**
 * The live-update protocol (JSON text frames on /v1/sessions/ws), as pure
 * functions: what clients may send, what the server answers, and how relayed
 * events become updates — session events the spec's `session.progress` /
 * `session.completed` / `session.error` messages, analysis events
 * `analysis.started` / `analysis.progress` / `analysis.completed` /
 * `analysis.error`.
 */

/**
 * The id of a subscription to every resource of its kind in the caller's
 * organisation and mode: `session_id: "*"` is every session (never analyses),
 * `analysis_id: "*"` every analysis.
 */
export const ALL = '*';

/** What live updates are about; a subscription names one kind, so `*` never mixes them. */
export type UpdateKind = 'session' | 'analysis';

/** One subscription: a session or an analysis by its public id, or `*` — every one of that kind. */
export interface Topic {
  kind: UpdateKind;
  id: string;
}

/** Exactly one of `session_id` / `analysis_id`, as the client sent it. */
export type ClientCommand = { type: 'subscribe' | 'unsubscribe' } & (
  | {
      /** A session id (`sess_…`) or `*`. */
      sessionId: string;
    }
  | {
      /** An analysis id (`anal_…`) or `*`. */
      analysisId: string;
    }
);

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

export type AnalysisUpdate =
  | {
      type: 'analysis.started';
      analysis_id: string;
      started_at: string;
      sequence: number;
      event_id: string;
    }
  | {
      type: 'analysis.progress';
      analysis_id: string;
      progress: number;
      current_step: string;
      sequence: number;
      event_id: string;
    }
  | {
      type: 'analysis.completed';
      analysis_id: string;
      confidence_score: number;
      results: EventDataMap['analysis.completed']['results'];
      processing_time: string;
      completed_at: string;
      sequence: number;
      event_id: string;
    }
  | {
      type: 'analysis.error';
      analysis_id: string;
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

/** Where an analysis stood when the subscription began (updates with a higher `sequence` follow). */
export interface AnalysisSnapshot {
  status: string;
  progress: number;
  current_step: string;
  sequence: number;
}

type ErrorReply = { type: 'error'; error: ProtocolError } & (
  { session_id?: string } | { analysis_id?: string }
);

export type ServerMessage =
  | ({ type: 'subscribed'; session_id: string } & Partial<SessionSnapshot>)
  | ({ type: 'subscribed'; analysis_id: string } & Partial<AnalysisSnapshot>)
  | { type: 'unsubscribed'; session_id: string }
  | { type: 'unsubscribed'; analysis_id: string }
  | ErrorReply
  | SessionUpdate
  | AnalysisUpdate;

/** An `error` reply; about a subscription, it names the session or analysis it concerns. */
export function errorMessage(code: ErrorCode, message: string, topic?: Topic): ErrorReply {
  const error = { code, message };
  if (topic === undefined) return { type: 'error', error };
  return topic.kind === 'session'
    ? { type: 'error', session_id: topic.id, error }
    : { type: 'error', analysis_id: topic.id, error };
}

/** The `subscribed` reply to `*`, which has no snapshot. */
export function subscribedMessage(topic: Topic): ServerMessage {
  return topic.kind === 'session'
    ? { type: 'subscribed', session_id: topic.id }
    : { type: 'subscribed', analysis_id: topic.id };
}

export function unsubscribedMessage(topic: Topic): ServerMessage {
  return topic.kind === 'session'
    ? { type: 'unsubscribed', session_id: topic.id }
    : { type: 'unsubscribed', analysis_id: topic.id };
}

/** What a command subscribes to or unsubscribes from. */
export function topicOf(command: ClientCommand): Topic {
  return 'sessionId' in command
    ? { kind: 'session', id: command.sessionId }
    : { kind: 'analysis', id: command.analysisId };
}

/** A client's text frame → its command, or the error to answer (the connection stays open). */
export function parseClientMessage(text: string): ClientCommand | ErrorReply {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return errorMessage('INVALID_REQUEST', 'The message is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return errorMessage('INVALID_REQUEST', 'The message must be a JSON object with a "type"');
  }
  const fields = value as Record<string, unknown>;
  const { type, session_id: sessionId, analysis_id: analysisId } = fields;
  if (type !== 'subscribe' && type !== 'unsubscribe') {
    return errorMessage(
      'INVALID_REQUEST',
      typeof type === 'string'
        ? `Unknown message type "${type.slice(0, 64)}"; expected "subscribe" or "unsubscribe"`
        : 'The message needs a "type": "subscribe" or "unsubscribe"',
    );
  }
  // A present key counts even when its value is wrong: `"session_id": null` is not "absent".
  const namesSession = Object.hasOwn(fields, 'session_id');
  const namesAnalysis = Object.hasOwn(fields, 'analysis_id');
  if (namesSession && namesAnalysis) {
    return errorMessage(
      'INVALID_REQUEST',
      'Send either "session_id" or "analysis_id", not both: one subscription per message',
    );
  }
  if (namesAnalysis) {
    if (
      typeof analysisId !== 'string' ||
      (analysisId !== ALL && parsePublicId('analysis', analysisId) === null)
    ) {
      return errorMessage(
        'INVALID_REQUEST',
        `"analysis_id" must be an analysis id (anal_…) or "${ALL}"`,
      );
    }
    return { type, analysisId };
  }
  if (
    typeof sessionId !== 'string' ||
    (sessionId !== ALL && parsePublicId('session', sessionId) === null)
  ) {
    return errorMessage(
      'INVALID_REQUEST',
      namesSession
        ? `"session_id" must be a session id (sess_…) or "${ALL}"`
        : `The message needs "session_id" or "analysis_id": "session_id" must be a session id (sess_…) or "${ALL}", "analysis_id" an analysis id (anal_…) or "${ALL}"`,
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

/** The update a relayed analysis event becomes, or null for events live updates do not carry. */
export function toAnalysisUpdate(event: EventEnvelope): AnalysisUpdate | null {
  switch (event.type) {
    case 'analysis.started': {
      const data = event.data as unknown as EventDataMap['analysis.started'];
      return {
        type: 'analysis.started',
        analysis_id: data.analysis_id,
        started_at: data.started_at,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    case 'analysis.progress_updated': {
      const data = event.data as unknown as EventDataMap['analysis.progress_updated'];
      return {
        type: 'analysis.progress',
        analysis_id: data.analysis_id,
        progress: data.progress,
        current_step: data.current_step,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    case 'analysis.completed': {
      const data = event.data as unknown as EventDataMap['analysis.completed'];
      return {
        type: 'analysis.completed',
        analysis_id: data.analysis_id,
        confidence_score: data.confidence_score,
        results: data.results,
        processing_time: data.processing_time,
        completed_at: data.completed_at,
        sequence: data.sequence,
        event_id: event.id,
      };
    }
    case 'analysis.failed': {
      const data = event.data as unknown as EventDataMap['analysis.failed'];
      return {
        type: 'analysis.error',
        analysis_id: data.analysis_id,
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

/** A relayed event as live updates carry it: the message and the subscription it is routed by. */
export function toLiveUpdate(
  event: EventEnvelope,
): { topic: Topic; update: SessionUpdate | AnalysisUpdate } | null {
  const session = toSessionUpdate(event);
  if (session) return { topic: { kind: 'session', id: session.session_id }, update: session };
  const analysis = toAnalysisUpdate(event);
  if (analysis) return { topic: { kind: 'analysis', id: analysis.analysis_id }, update: analysis };
  return null;
}
