import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Principal, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql, type Transaction } from '#database';
import { EngineRegistry, renderSketchSvg } from '#engines';
import { EventLog, recordAudit } from '#events';
import {
  assertRunningWorkWithin,
  OrganizationLimitsCache,
  type ConcurrentWorkKind,
  type OrganizationLimits,
} from '#organizations';
import { BatchRecords, type BatchEntity } from '#work';
import { AnalystSessions } from './analyst-sessions.js';
import { sessionSketchUrl } from './session-sketches.js';
import type { SessionEntity } from './entities/session.entity.js';
import { sessionCreatedData } from './session-events.js';
import { PROGRESS_STEPS } from './session-phase.js';
import { requestedSession, type NewSession, type SessionRequest } from './session-request.js';
import { SessionTemplatesService } from './session-templates.service.js';
import {
  SessionsRepository,
  type FinishedWork,
  type FinishedWorkSelection,
} from './sessions.repository.js';

/** Sessions hold a place of the plan's concurrent sessions until they finish. */
const CONCURRENT_SESSIONS: ConcurrentWorkKind = {
  running: ['initiated', 'in_progress'],
  noun: 'sessions',
  field: 'concurrent_sessions',
};

/** Time the simulated engine takes beyond its progress steps (queueing, relay), for estimates. */
const QUEUE_ALLOWANCE_MS = 2_000;

/** Sessions as API callers see them; the work itself is done by the worker (SessionRunner). */
@Injectable()
export class SessionsService {
  constructor(
    private readonly sql: Sql,
    private readonly sessions: SessionsRepository,
    private readonly events: EventLog,
    private readonly settings: AppSettings,
    private readonly limits: OrganizationLimitsCache,
    private readonly engines: EngineRegistry,
    private readonly templates: SessionTemplatesService,
    private readonly batches: BatchRecords,
    private readonly analystSessions: AnalystSessions,
  ) {}

  /** Creates the session and its `session.created` event in one transaction. */
  async create(
    tenant: Tenant,
    input: NewSession,
    requestId: string | null,
  ): Promise<SessionEntity> {
    // Looked up before the transaction: a cache miss inside it would wait for a second pool
    // connection while holding one, and a burst of creates would deadlock the pool.
    const limits = await this.limits.get(tenant.organizationId);
    const engine = await this.analystSessions.engineFor(tenant, input.people?.engine);
    const people =
      engine === 'analyst'
        ? await this.analystSessions.prepare(tenant, input.analystCount ?? 1, input.people)
        : null;
    return this.sql.transaction(async (tx) => {
      const session = await this.insert(tx, tenant, input, requestId, null, engine);
      if (people) await this.analystSessions.task(tx, tenant, session, people, requestId);
      await this.assertWithinLimit(tx, tenant, limits);
      return session;
    });
  }

  /**
   * Creates the session a request asks for, starting from the template it
   * names (else INVALID_REQUEST naming `template_id`): see requestedSession.
   */
  async createRequested(
    tenant: Tenant,
    request: SessionRequest,
    requestId: string | null,
  ): Promise<SessionEntity> {
    const template =
      request.templateId === undefined
        ? null
        : await this.templates.resolve(tenant, request.templateId, 'template_id');
    return this.create(tenant, requestedSession(request, template), requestId);
  }

  /**
   * Creates a batch of sessions with their `session.created` events in one
   * transaction: all of them or none.
   */
  async createBatch(
    tenant: Tenant,
    inputs: NewSession[],
    requestId: string | null,
  ): Promise<{ batch: BatchEntity; sessions: SessionEntity[] }> {
    const limits = await this.limits.get(tenant.organizationId);
    return this.sql.transaction(async (tx) => {
      const batch = await this.batches.insert(tx, tenant, 'sessions', inputs.length, requestId);
      const sessions: SessionEntity[] = [];
      for (const input of inputs) {
        sessions.push(await this.insert(tx, tenant, input, requestId, batch.id));
      }
      await this.assertWithinLimit(tx, tenant, limits);
      return { batch, sessions };
    });
  }

  /** 429 when the sessions just inserted take the tenant over its plan's concurrent sessions. */
  private assertWithinLimit(
    tx: Transaction,
    tenant: Tenant,
    limits: OrganizationLimits | null,
  ): Promise<void> {
    return assertRunningWorkWithin(limits, CONCURRENT_SESSIONS, {
      countLocked: (atMost) => this.sessions.countRunningLocked(tx, tenant, atMost),
      nextCompletion: () => this.sessions.nextCompletion(tenant, tx),
    });
  }

  private async insert(
    tx: Transaction,
    tenant: Tenant,
    input: NewSession,
    requestId: string | null,
    batchId: string | null,
    engine: string = this.engines.engineFor('session', tenant.mode),
  ): Promise<SessionEntity> {
    const uuid = newUuid();
    const now = new Date();
    const session: SessionEntity = {
      id: uuid,
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
        now.getTime() + this.settings.simulatedStepMs * PROGRESS_STEPS + QUEUE_ALLOWANCE_MS,
      ),
      batchId,
      analystCount: input.analystCount ?? 1,
      mergedFrom: null,
    };
    await this.sessions.insert(tx, tenant, session);
    await this.events.append(tx, tenant, 'session.created', sessionCreatedData(session), requestId);
    return session;
  }

  /** The sessions of a batch (found by BatchRecords), in creation order. */
  batchItems(batch: BatchEntity): Promise<SessionEntity[]> {
    const tenant = { organizationId: batch.organizationId, mode: batch.mode };
    return this.sessions.batchItems(tenant, batch.id);
  }

  /**
   * Completed sessions of the tenant created before `before` whose target,
   * whitespace collapsed and lower-cased, is `targetKey`: earlier work on the
   * same target, for analyses to cross-reference. Newest first.
   */
  completedOnTarget(
    tenant: Tenant,
    targetKey: string,
    before: Date,
    limit: number,
  ): Promise<SessionEntity[]> {
    return this.sessions.completedOnTarget(tenant, targetKey, before, limit);
  }

  /**
   * Completed sessions as pattern recognition reads them — when, where the
   * analysts placed the target, what they described — newest first, at most
   * `limit`: those with the given ids, or those matching the filter.
   */
  finishedWork(
    tenant: Tenant,
    selection: FinishedWorkSelection,
    limit: number,
  ): Promise<FinishedWork[]> {
    return this.sessions.finishedWork(tenant, selection, limit);
  }

  /** The session with that public id in the caller's organisation and mode, else NOT_FOUND. */
  async get(tenant: Tenant, publicId: string): Promise<SessionEntity> {
    return this.findOne(publicId, (uuid) => this.sessions.find(tenant, uuid));
  }

  /** A `public` session of any organisation, for read-only sharing; else NOT_FOUND. */
  async getPublic(publicId: string): Promise<SessionEntity> {
    return this.findOne(publicId, (uuid) => this.sessions.findPublicAcrossTenants(uuid));
  }

  private async findOne(
    publicId: string,
    find: (uuid: string) => Promise<SessionEntity | null>,
  ): Promise<SessionEntity> {
    const uuid = parsePublicId('session', publicId);
    const session = uuid === null ? null : await find(uuid);
    if (!session) throw AppError.notFound('session', publicId);
    return session;
  }

  /**
   * Cancels a session that has not finished: it becomes `failed` with reason
   * `cancelled` and `session.failed` announces it, in one transaction. The
   * runner's next step sees the stored state and stops.
   */
  async cancel(tenant: Tenant, publicId: string, requestId: string | null): Promise<SessionEntity> {
    const uuid = parsePublicId('session', publicId);
    if (uuid === null) throw AppError.notFound('session', publicId);
    return this.sql.transaction(async (tx) => {
      const current = await this.sessions.findForUpdate(tx, tenant, uuid);
      if (!current) throw AppError.notFound('session', publicId);
      if (current.status === 'completed' || current.status === 'failed') {
        throw new AppError(
          'CONFLICT',
          `Session ${publicId} has already ${current.status === 'completed' ? 'completed' : 'failed'}`,
          {
            field: 'status',
            issue: `only initiated or in_progress sessions can be cancelled; this one is ${current.status}`,
          },
        );
      }
      const failedAt = new Date();
      const sequence = current.eventSequence + 1;
      await this.analystSessions.cancelled(tx, current, requestId);
      await this.sessions.markEnded(tx, tenant, uuid, {
        reason: 'cancelled',
        failedAt,
        sequence,
      });
      await this.events.append(
        tx,
        tenant,
        'session.failed',
        {
          session_id: publicId,
          type: current.type,
          status: 'failed',
          reason: 'cancelled',
          message: 'The session was cancelled',
          failed_at: failedAt.toISOString(),
          sequence,
        },
        requestId,
      );
      return {
        ...current,
        status: 'failed',
        failureReason: 'cancelled',
        completedAt: failedAt,
        eventSequence: sequence,
        updatedAt: failedAt,
      };
    });
  }

  /**
   * Deletes a session in one transaction: its row goes; the data of its events
   * in the log shrinks to the session id and sequence, so replays and pending
   * deliveries carry nothing of it; an audit record keeps who deleted it, when,
   * and in which request. A running session stops at its next step.
   */
  async delete(principal: Principal, publicId: string, requestId: string | null): Promise<void> {
    const uuid = parsePublicId('session', publicId);
    if (uuid === null) throw AppError.notFound('session', publicId);
    await this.sql.transaction(async (tx) => {
      const createdAt = await this.sessions.delete(tx, principal, uuid);
      if (!createdAt) throw AppError.notFound('session', publicId);
      await this.analystSessions.forget(tx, principal, uuid);
      await this.events.redact(tx, principal, 'session_id', publicId, createdAt);
      await recordAudit(tx, principal, 'session.deleted', publicId, requestId);
    });
  }

  /**
   * A sketch of a completed session, of the caller's sessions or of a public
   * one (shared read-only): a simulated sketch (`3.svg`) is redrawn from the
   * engine's seed; an analyst's upload (`skt_….png`) is served as stored.
   */
  async sketch(
    tenant: Tenant,
    publicId: string,
    file: string,
  ): Promise<{ contentType: string; body: string | Buffer; uploaded: boolean }> {
    const session = await this.get(tenant, publicId).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'NOT_FOUND') return this.getPublic(publicId);
      throw error;
    });
    const sketches = (session.results?.sketches ?? []) as { index: number; file?: string }[];
    const notFound = () =>
      new AppError('NOT_FOUND', `Session ${publicId} has no sketch ${file}`, {
        field: 'sketch',
        issue: 'not found',
      });
    const uploaded = sketches.find((sketch) => sketch.file !== undefined && sketch.file === file);
    if (uploaded) {
      const sketchId = parsePublicId('sketch', file.replace(/\.[a-z]+$/, ''));
      const stored =
        sketchId === null ? null : await this.analystSessions.sketch(session, sketchId);
      if (!stored) throw notFound();
      return { contentType: stored.contentType, body: stored.bytes, uploaded: true };
    }
    const index = /^(\d{1,2})\.svg$/.exec(file);
    if (
      !index ||
      session.engineSeed === null ||
      !sketches.some((sketch) => sketch.index === Number(index[1]) && sketch.file === undefined)
    ) {
      throw notFound();
    }
    return {
      contentType: 'image/svg+xml; charset=utf-8',
      body: renderSketchSvg(session.engineSeed, Number(index[1])),
      uploaded: false,
    };
  }

  /**
   * A sketch's address under the base URL the caller asked on (the live or
   * the sandbox one); events, which no request asks for, carry the live one.
   */
  sketchUrl(session: SessionEntity, index: number, baseUrl = this.settings.publicUrl): string {
    return sessionSketchUrl(baseUrl, session, index);
  }
}
