import { Injectable } from '@nestjs/common';
import {
  type PreparedTasking,
  progressStep,
  type SubmissionProgress,
  type Tasking,
  type WorkPeople,
  combineSubmissions,
} from '#analysts';
import { toPublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import type { Transaction } from '#database';
import type { SessionResultsData } from '#engines';
import { EventLog } from '#events';
import {
  AnalystKindService,
  AnalystLifecycle,
  type BlindBrief,
  type CompletionInputs,
} from '#work';
import type { SessionEntity } from './entities/session.entity.js';
import { verifiedSessionsOf } from './session-evidence.js';
import { SESSION_IDENTITY, sessionCompletedData } from './session-events.js';
import { phaseOf } from './session-phase.js';
import { sessionSketchUrl } from './session-sketches.js';
import { SessionsRepository } from './sessions.repository.js';

/** The version the `analyst` engine records with its work. */
export const ANALYST_ENGINE_VERSION = 'analyst-1';

/**
 * Sessions done by people (the `analyst` engine, docs/analysts.md), a kind
 * of AnalystLifecycle: a session is `in_progress` from its tasking, its
 * progress is the share of analysts who have submitted, and its results
 * combine the submissions (sketches included).
 */
@Injectable()
export class AnalystSessions extends AnalystKindService<SessionEntity> {
  readonly identity = SESSION_IDENTITY;
  readonly submittable = ['in_progress'];
  readonly open = ['in_progress', 'initiated'];
  readonly completedLog = { idKey: 'sessionId', message: 'analyst session completed' };

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
    lifecycle: AnalystLifecycle,
  ) {
    super(lifecycle, sessions);
  }

  brief(session: SessionEntity): BlindBrief {
    return { target: session.target, modality: session.modality, questionType: session.type };
  }

  durationMinutes(session: SessionEntity): number {
    return session.durationMinutes;
  }

  verified(session: SessionEntity) {
    return verifiedSessionsOf(session.type);
  }

  /** What a session asks of people, checked before it is created (AnalystLifecycle.prepare). */
  prepare(
    tenant: Tenant,
    analystCount: number,
    people: WorkPeople | undefined,
  ): Promise<PreparedTasking> {
    return this.lifecycle.prepare(tenant, analystCount, people);
  }

  /** An analyst's uploaded sketch of the session, as stored. */
  sketch(session: SessionEntity, sketchId: string) {
    return this.lifecycle.sketch(this, session, sketchId);
  }

  async recordTasked(
    tx: Transaction,
    tenant: Tenant,
    session: SessionEntity,
    tasking: Tasking,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    await this.sessions.markTasked(tx, tenant, session.id, {
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ENGINE_VERSION,
      deadline: tasking.deadline,
      sequence,
    });
    Object.assign(session, {
      status: 'in_progress',
      startedAt: tasking.createdAt,
      engineVersion: ANALYST_ENGINE_VERSION,
      estimatedCompletion: tasking.deadline,
      eventSequence: sequence,
    });
    await this.events.append(
      tx,
      tenant,
      'session.started',
      {
        session_id: toPublicId('session', session.id),
        type: session.type,
        status: 'in_progress',
        started_at: tasking.createdAt.toISOString(),
        sequence,
      },
      requestId,
    );
  }

  async recordProgress(
    tx: Transaction,
    tenant: Tenant,
    session: SessionEntity,
    progress: SubmissionProgress,
    sequence: number,
    requestId: string | null,
  ): Promise<boolean> {
    const reached = progressStep(progress);
    if (reached <= session.progress) return false;
    await this.sessions.recordProgress(tx, tenant, session.id, reached, sequence);
    await this.events.append(
      tx,
      tenant,
      'session.progress_updated',
      {
        session_id: toPublicId('session', session.id),
        type: session.type,
        status: 'in_progress',
        progress: reached,
        current_phase: phaseOf({ status: 'in_progress', progress: reached }),
        sequence,
      },
      requestId,
    );
    return true;
  }

  async recordCompletion(
    tx: Transaction,
    tenant: Tenant,
    session: SessionEntity,
    { submissions, forCombining, records, p0, verified }: CompletionInputs,
    sequence: number,
    requestId: string | null,
  ): Promise<void> {
    const combined = combineSubmissions(forCombining, records, p0, verified);
    const sketches = submissions.flatMap((s) =>
      s.sketches.map((sketch) => ({
        analyst: toPublicId('analyst', s.userId),
        file: `${toPublicId('sketch', sketch.id)}.${EXTENSIONS[sketch.contentType] ?? 'bin'}`,
      })),
    );
    const results: SessionResultsData = {
      coordinates: combined.coordinates,
      descriptors: combined.descriptors,
      sketches: sketches.map((sketch, index) => ({
        index,
        file: sketch.file,
        description: `Sketch by ${sketch.analyst}`,
      })),
      confidence_score: combined.confidenceScore,
      validation_metrics: combined.validationMetrics,
      statistical_validation: combined.statisticalValidation,
      collaborative_insights: combined.collaborativeInsights,
    };
    const completedAt = new Date();
    await this.sessions.markCompletedBySubmissions(tx, tenant, session.id, {
      completedAt,
      results: { ...results },
      confidenceScore: results.confidence_score,
      analystId: combined.leadAnalystId,
      evidence: combined.evidence,
      sequence,
    });
    const completed = { ...session, status: 'completed' as const, results: results as never };
    await this.events.append(
      tx,
      tenant,
      'session.completed',
      sessionCompletedData(completed, results, completedAt, sequence, (index) =>
        sessionSketchUrl(this.settings.publicUrl, completed, index),
      ),
      requestId,
    );
  }
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};
