import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { Sql } from '#database';
import { type SessionEntity } from './entities/session.entity.js';
import { EngineRegistry } from '#engines';
import { EventLog } from '#events';
import { VerifiedRecords } from '#history';
import { OrganizationsService } from '#organizations';
import { mergedSettings, mergeRefusal } from './merge-rules.js';
import { verifiedSessionsOf } from './session-evidence.js';
import { sessionCompletedData, sessionCreatedData } from './session-events.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

/**
 * Combines completed sessions on one target into a new, completed session
 * (POST /v2/sessions/{id}/merge). The rules, all checked before anything is
 * written:
 * - the others do not name the session the merge starts from (the one in the
 *   path); else INVALID_REQUEST naming `session_ids`;
 * - every source is the caller's, `completed`, not itself a merge, of the
 *   same type and target, and produced by one engine that can merge, at its
 *   current version (its work is re-derived, not copied); else a 409 naming
 *   `session_ids` and the source at fault;
 * - the result pools every source's contributions against the target's one
 *   ground truth (SessionEngine#merge); an analyst in several sources counts
 *   once over all their trials;
 * - it takes the strictest privacy level of its sources, their modality if
 *   they share one, the longest duration, and the sum of their analysts;
 * - its confidence and statistical validation rest on the organisation's
 *   verified outcomes of sessions of the type when it has any, as a run
 *   session's do.
 */
@Injectable()
export class SessionMerger {
  constructor(
    private readonly sql: Sql,
    private readonly repository: SessionsRepository,
    private readonly events: EventLog,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    private readonly organizations: OrganizationsService,
    private readonly verified: VerifiedRecords,
  ) {}

  /** A new session merging `sessionId` with `others` (public ids), in that order. */
  async merge(
    tenant: Tenant,
    sessionId: string,
    others: readonly string[],
    requestId: string | null,
  ): Promise<SessionEntity> {
    if (others.includes(sessionId)) {
      throw AppError.invalid('session_ids', 'must not name the session in the path');
    }
    const publicIds = [sessionId, ...others];
    const sources = await this.load(tenant, publicIds);
    const byPeople = sources.findIndex((source) => source.engine === 'analyst');
    if (byPeople >= 0) {
      const refusal =
        'it was done by analysts: its results come from their submissions, which no engine can re-derive';
      throw new AppError(
        'CONFLICT',
        `Session ${publicIds[byPeople]} cannot be merged: ${refusal}`,
        {
          field: 'session_ids',
          issue: `${publicIds[byPeople]}: ${refusal}`,
        },
      );
    }
    const engine = this.engines.session(sources[0]!.engine);
    sources.forEach((source, i) => {
      const refusal = mergeRefusal(source, sources[0]!, engine);
      if (refusal === null) return;
      throw new AppError('CONFLICT', `Session ${publicIds[i]} cannot be merged: ${refusal}`, {
        field: 'session_ids',
        issue: `${publicIds[i]}: ${refusal}`,
      });
    });
    const [orgSeed, verified] = await Promise.all([
      this.organizations.engineSeed(tenant.organizationId),
      this.verified.of(tenant, verifiedSessionsOf(sources[0]!.type)),
    ]);
    const outcome = await engine.merge!(
      sources.map((s) => ({
        type: s.type,
        target: s.target,
        modality: s.modality,
        durationMinutes: s.durationMinutes,
        privacyLevel: s.privacyLevel,
        analystCount: s.analystCount,
      })),
      orgSeed,
      verified,
    );
    const [first] = sources as [SessionEntity, ...SessionEntity[]];
    const now = new Date();
    const merged: SessionEntity = {
      id: newUuid(),
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      type: first.type,
      target: first.target,
      ...mergedSettings(sources as [SessionEntity, ...SessionEntity[]]),
      status: 'completed',
      progress: 100,
      engine: outcome.engine,
      engineVersion: outcome.engineVersion,
      engineSeed: outcome.seed,
      results: { ...outcome.results },
      confidenceScore: outcome.results.confidence_score,
      analystId: outcome.analystId,
      evidence: outcome.evidence,
      failureReason: null,
      eventSequence: 2,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      completedAt: now,
      estimatedCompletion: now,
      batchId: null,
      mergedFrom: sources.map((s) => s.id),
    };
    await this.sql.transaction(async (tx) => {
      await this.repository.insert(tx, tenant, merged);
      await this.events.append(
        tx,
        tenant,
        'session.created',
        sessionCreatedData(merged),
        requestId,
      );
      await this.events.append(
        tx,
        tenant,
        'session.completed',
        sessionCompletedData(merged, outcome.results, now, 2, (index) =>
          this.sessions.sketchUrl(merged, index),
        ),
        requestId,
      );
    });
    return merged;
  }

  /** The sources in the order given; the first one missing from the caller's tenant is NOT_FOUND. */
  private async load(tenant: Tenant, publicIds: readonly string[]): Promise<SessionEntity[]> {
    const uuids = publicIds.map((id) => parsePublicId('session', id));
    const found = await this.repository.findMany(
      tenant,
      uuids.filter((uuid) => uuid !== null),
    );
    const byId = new Map(found.map((session) => [session.id, session]));
    return uuids.map((uuid, i) => {
      const session = uuid === null ? undefined : byId.get(uuid);
      if (!session) throw AppError.notFound('session', publicIds[i]!);
      return session;
    });
  }
}
