import { Injectable } from '@nestjs/common';
import type { PreparedTasking } from '#analysts';
import { newUuid } from '#common';
import { AppSettings } from '#config';
import type { ConcurrentWorkKind } from '#organizations';
import type { WorkCreation, WorkKind } from '#work';
import { AnalystSessions } from './analyst-sessions.js';
import type { SessionEntity } from './entities/session.entity.js';
import { SESSION_IDENTITY, sessionCreatedData } from './session-events.js';
import { PROGRESS_STEPS } from './session-phase.js';
import type { NewSession } from './session-request.js';
import { SESSION_RUNNING_STATUSES, SessionsRepository } from './sessions.repository.js';

/** Time the simulated engine takes beyond its progress steps (queueing, relay), for estimates. */
const QUEUE_ALLOWANCE_MS = 2_000;

/** Sessions hold a place of the plan's concurrent sessions until they finish. */
export const CONCURRENT_SESSIONS: ConcurrentWorkKind = {
  running: SESSION_RUNNING_STATUSES,
  noun: 'sessions',
  field: 'concurrent_sessions',
};

/** Sessions as a kind of work (libs/work's lifecycle): what only sessions know of it. */
@Injectable()
export class SessionKind implements WorkKind<SessionEntity> {
  readonly identity = SESSION_IDENTITY;
  readonly concurrency = CONCURRENT_SESSIONS;
  readonly cancelledMessage = 'The session was cancelled';
  readonly creation: WorkCreation<SessionEntity, NewSession, PreparedTasking>;

  constructor(
    readonly table: SessionsRepository,
    settings: AppSettings,
    analysts: AnalystSessions,
  ) {
    this.creation = {
      engineKind: 'session',
      batchKind: 'sessions',
      batchField: 'sessions.',
      build: (tenant, { input, engine }, _computed, { batchId, now }) => ({
        id: newUuid(),
        organizationId: tenant.organizationId,
        mode: tenant.mode,
        type: input.type,
        target: input.target,
        modality: input.modality,
        durationMinutes: input.durationMinutes,
        privacyLevel: input.privacyLevel,
        status: 'initiated',
        progress: 0,
        engine,
        engineVersion: null,
        engineSeed: null,
        results: null,
        confidenceScore: null,
        analystId: null,
        evidence: null,
        failureReason: null,
        eventSequence: 1,
        createdAt: now,
        updatedAt: now,
        startedAt: null,
        completedAt: null,
        estimatedCompletion: new Date(
          now.getTime() + settings.simulatedStepMs * PROGRESS_STEPS + QUEUE_ALLOWANCE_MS,
        ),
        batchId,
        analystCount: input.analystCount ?? 1,
        mergedFrom: null,
      }),
      createdEvent: (session) => ({ type: 'session.created', data: sessionCreatedData(session) }),
      people: {
        // A batch item has no tasking fields: an engine does it.
        requestedEngine: (input, inBatch) => (inBatch ? 'simulated' : input.people?.engine),
        prepare: (tenant, input) => analysts.prepare(tenant, input.analystCount ?? 1, input.people),
        task: (...tasking) => analysts.task(...tasking),
      },
    };
  }
}
