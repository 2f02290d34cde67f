import { ID_PREFIXES, toPublicId } from '#common';
import { disclosedTarget } from './classified-target.js';
import type { SessionEntity } from './entities/session.entity.js';
import type { SessionResultsData } from '#engines';
import type { EventDataMap, SessionCompletedData } from '#events';
import { workEventData, type FailedEvent, type WorkFailure, type TaskedIdentity } from '#work';

/** The fields every session event names its session by. */
const event = workEventData((session: SessionEntity) => ({
  session_id: toPublicId('session', session.id),
  type: session.type,
  status: session.status,
}));

/** The data of `session.created`: the session as it was created (a merge is created completed). */
export function sessionCreatedData(session: SessionEntity): EventDataMap['session.created'] {
  return {
    ...event.base(session, 1),
    created_at: session.createdAt.toISOString(),
    estimated_completion: session.estimatedCompletion?.toISOString() ?? null,
  };
}

/** The data of `session.failed`: the session, just failed, and why. */
export function sessionFailedData(
  session: SessionEntity,
  failure: WorkFailure,
  sequence: number,
): EventDataMap['session.failed'] {
  return event.failed(session, failure, sequence);
}

/** A session's failure event (a cancellation, a deadline passed). */
export const sessionFailedEvent: FailedEvent<SessionEntity> = (session, failure, sequence) => ({
  type: 'session.failed',
  data: sessionFailedData(session, failure, sequence),
});

/** Sessions' names and failure event, as every part of the lifecycle reads them (WorkIdentity). */
export const SESSION_IDENTITY: TaskedIdentity<SessionEntity> = {
  idPrefix: ID_PREFIXES.session,
  noun: 'session',
  feature: 'sessions',
  tasked: 'session',
  eventIdField: 'session_id',
  deletedAction: 'session.deleted',
  failedEvent: sessionFailedEvent,
};

/**
 * The data of `session.completed`. A classified session's target never
 * leaves the sessions table (disclosedTarget): the event has no `target`.
 */
export function sessionCompletedData(
  session: SessionEntity,
  results: SessionResultsData,
  completedAt: Date,
  sequence: number,
  sketchUrl: (index: number) => string,
): SessionCompletedData {
  const target = disclosedTarget(session);
  return {
    session_id: toPublicId('session', session.id),
    type: session.type,
    ...(target === null ? {} : { target }),
    status: 'completed',
    confidence_score: results.confidence_score,
    duration_minutes: session.durationMinutes,
    results: {
      coordinates: results.coordinates && {
        latitude: results.coordinates.latitude,
        longitude: results.coordinates.longitude,
      },
      descriptors: results.descriptors,
      sketches: results.sketches.map((sketch) => sketchUrl(sketch.index)),
    },
    completed_at: completedAt.toISOString(),
    sequence,
  };
}
