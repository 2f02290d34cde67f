import { Injectable } from '@nestjs/common';
import { AppError, newKey, parsePublicId, type PrivacyLevel, type Tenant } from '#common';
import { Sql, type SessionEntity } from '#database';
import { EngineRegistry, type SessionEngine } from '#engines';
import { EventLog } from '#events';
import { OrganizationsService } from '#organizations';
import { sessionCompletedData, sessionCreatedData } from './session-events.js';
import {
  INSERT_SESSION,
  SESSION_COLUMNS,
  sessionFromRow,
  sessionToRow,
  type SessionRow,
} from './session-rows.js';
import { SessionsService } from './sessions.service.js';

/** How many sessions one merge may combine. */
export const MAX_MERGED_SESSIONS = 20;

/** Strictest first: a merge is as private as its most private source. */
const PRIVACY_ORDER: readonly PrivacyLevel[] = ['classified', 'private', 'public'];

/**
 * Combines completed sessions on one target into a new, completed session
 * (POST /v2/sessions/{id}/merge). The rules, all checked before anything is
 * written (each refusal is a 409 naming `session_ids`):
 * - every source is the caller's, `completed`, not itself a merge, of the
 *   same type and target, and produced by one engine that can merge, at its
 *   current version (its work is re-derived, not copied);
 * - the result pools every source's contributions against the target's one
 *   ground truth (SessionEngine#merge); an analyst in several sources counts
 *   once over all their trials;
 * - it takes the strictest privacy level of its sources, their modality if
 *   they share one, the longest duration, and the sum of their analysts.
 */
@Injectable()
export class SessionMerger {
  constructor(
    private readonly sql: Sql,
    private readonly events: EventLog,
    private readonly sessions: SessionsService,
    private readonly engines: EngineRegistry,
    private readonly organizations: OrganizationsService,
  ) {}

  async merge(
    tenant: Tenant,
    publicIds: readonly string[],
    requestId: string | null,
  ): Promise<SessionEntity> {
    const sources = await this.load(tenant, publicIds);
    const engine = this.engines.session(sources[0]!.engine);
    sources.forEach((source, i) => assertMergeable(source, publicIds[i]!, sources[0]!, engine));
    const orgSeed = await this.organizations.engineSeed(tenant.organizationId);
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
    );
    const [first] = sources as [SessionEntity, ...SessionEntity[]];
    const now = new Date();
    const merged: SessionEntity = {
      id: newKey('session').uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
      type: first.type,
      target: first.target,
      modality: sources.every((s) => s.modality === first.modality) ? first.modality : null,
      durationMinutes: Math.max(...sources.map((s) => s.durationMinutes)),
      privacyLevel: PRIVACY_ORDER.find((level) => sources.some((s) => s.privacyLevel === level))!,
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
      analystCount: sources.reduce((sum, s) => sum + s.analystCount, 0),
      mergedFrom: sources.map((s) => s.id),
    };
    await this.sql.transaction(async (tx) => {
      await tx.query(INSERT_SESSION, sessionToRow(merged));
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
    const rows = await this.sql.rows<SessionRow>(
      `SELECT ${SESSION_COLUMNS.join(', ')} FROM sessions
        WHERE id = ANY($1::uuid[]) AND organization_id = $2 AND mode = $3`,
      [uuids.filter((uuid) => uuid !== null), tenant.organizationId, tenant.mode],
    );
    const byId = new Map(rows.map((row) => [row.id as string, sessionFromRow(row)]));
    return uuids.map((uuid, i) => {
      const session = uuid === null ? undefined : byId.get(uuid);
      if (!session) throw AppError.notFound('session', publicIds[i]!);
      return session;
    });
  }
}

function assertMergeable(
  source: SessionEntity,
  publicId: string,
  first: SessionEntity,
  engine: SessionEngine,
): void {
  const refuse = (issue: string) =>
    new AppError('CONFLICT', `Session ${publicId} cannot be merged: ${issue}`, {
      field: 'session_ids',
      issue: `${publicId}: ${issue}`,
    });
  if (source.status !== 'completed') throw refuse(`it is ${source.status}, not completed`);
  if (source.mergedFrom !== null) {
    throw refuse('it is itself a merge; merge its sources with the others instead');
  }
  if (source.type !== first.type) throw refuse(`its type ${source.type} is not ${first.type}`);
  if (source.target !== first.target) throw refuse('its target differs from the first session');
  if (!engine.merge) throw refuse(`its engine ${engine.name} cannot merge work`);
  if (source.engine !== engine.name || source.engineVersion !== engine.version) {
    throw refuse(
      `it was produced by engine ${source.engine} ${source.engineVersion ?? ''}`.trimEnd() +
        `, and only ${engine.version} work can be re-derived`,
    );
  }
}
