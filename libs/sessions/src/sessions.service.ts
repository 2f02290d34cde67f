import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, type Tenant } from '#common';
import { AppSettings } from '#config';
import { renderSketchSvg } from '#engines';
import { WorkLifecycle, WorkService, type FinishedWork, type FinishedWorkSelection } from '#work';
import { AnalystSessions } from './analyst-sessions.js';
import { SessionKind } from './session-kind.js';
import { sessionSketchUrl } from './session-sketches.js';
import type { SessionEntity } from './entities/session.entity.js';
import { requestedSession, type NewSession, type SessionRequest } from './session-request.js';
import { SessionTemplatesService } from './session-templates.service.js';
import { SessionsRepository } from './sessions.repository.js';

/**
 * Sessions as API callers see them (WorkService; SessionKind says what is
 * theirs), with what only sessions offer: templates, public sharing and
 * sketches. The work itself is done by the worker (SessionRunner).
 */
@Injectable()
export class SessionsService extends WorkService<SessionEntity, NewSession> {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly settings: AppSettings,
    private readonly templates: SessionTemplatesService,
    private readonly analystSessions: AnalystSessions,
    lifecycle: WorkLifecycle,
    kind: SessionKind,
  ) {
    super(lifecycle, kind);
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

  /** A `public` session of any organisation, for read-only sharing; else NOT_FOUND. */
  async getPublic(publicId: string): Promise<SessionEntity> {
    const uuid = parsePublicId('session', publicId);
    const session = uuid === null ? null : await this.sessions.findPublicAcrossTenants(uuid);
    if (!session) throw AppError.notFound('session', publicId);
    return session;
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
