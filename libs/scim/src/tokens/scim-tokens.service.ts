import { Injectable, Logger } from '@nestjs/common';
import { AppError, newKey, parsePublicId, toPublicId, type Principal } from '#common';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import { AuditLog, auditChanges } from '#events';
import type { ScimTokenEntity } from './scim-token.entity.js';
import { generateScimToken, hashScimToken, isScimTokenShaped } from './scim-token-format.js';
import { ScimTokensRepository, type ScimToken } from './scim-tokens.repository.js';

/** Live (unrevoked) tokens an organisation may hold: one per identity provider, with room to rotate. */
export const MAX_LIVE_SCIM_TOKENS = 20;
export const DEFAULT_SCIM_TOKEN_NAME = 'SCIM';
export const MAX_SCIM_TOKEN_NAME_LENGTH = 100;
/** last_used_at is written at most this often per token (the repository's UPDATE says so too). */
const LAST_USED_RESOLUTION_MS = 60_000;

/** A token just issued: the only time `token` itself is known. */
export interface IssuedScimToken {
  /** Public id, `scim_…`. */
  id: string;
  token: string;
  name: string;
  createdAt: Date;
}

/** Whose a presented token is. */
export interface ScimTokenHolder {
  organizationId: string;
  /** Public id, `scim_…`: the audit log's actor for what the SCIM client does. */
  tokenId: string;
}

/**
 * The bearer tokens an identity provider's SCIM client (Okta, Entra ID)
 * calls `/scim/v2` with. A token reaches its organisation's people and
 * groups, which belong to both modes, so only a live-mode credential creates
 * or revokes one. Only its SHA-256 is stored; the token is shown once.
 */
@Injectable()
export class ScimTokensService {
  private readonly logger = new Logger(ScimTokensService.name);

  constructor(
    private readonly sql: Sql,
    private readonly tokens: ScimTokensRepository,
  ) {}

  /**
   * Issues a token for the caller's organisation, unless it already holds
   * MAX_LIVE_SCIM_TOKENS unrevoked ones (CONFLICT). Creation and its audit
   * event commit together; the event never holds the token.
   */
  async create(
    principal: Principal,
    name: string = DEFAULT_SCIM_TOKEN_NAME,
  ): Promise<IssuedScimToken> {
    requireLiveMode(principal);
    if (name.length < 1 || name.length > MAX_SCIM_TOKEN_NAME_LENGTH) {
      throw AppError.invalid('name', `must be 1 to ${MAX_SCIM_TOKEN_NAME_LENGTH} characters`);
    }
    const { uuid, id } = newKey('scimToken');
    const token = generateScimToken();
    const record: ScimTokenEntity = {
      id: uuid,
      organizationId: principal.organizationId,
      name,
      tokenHash: hashScimToken(token),
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
    };
    await this.sql.transaction(async (tx) => {
      const live = await this.tokens.countLiveLocked(tx, principal.organizationId);
      if (live >= MAX_LIVE_SCIM_TOKENS) throw tooManyTokens();
      await this.tokens.insert(tx, principal.organizationId, record);
      await AuditLog.record(tx, principal, {
        action: 'scim_token.created',
        actor: principal,
        target: { type: 'scim_token', id },
        changes: auditChanges({}, { name }),
      });
    });
    return { id, token, name, createdAt: record.createdAt };
  }

  /** A page of the organisation's tokens, revoked ones included, newest first; never a token or its hash. */
  list(organizationId: string, request: PageRequest): Promise<KeysetPage<ScimToken>> {
    return this.tokens.page(organizationId, request);
  }

  /**
   * Stops the token at once (each SCIM call looks it up). Revoking a revoked
   * token changes nothing and succeeds, like revoking an API key, and is
   * recorded all the same: someone tried. Another organisation's token, or
   * one that never was, is NOT_FOUND.
   */
  async revoke(principal: Principal, publicId: string): Promise<ScimToken> {
    requireLiveMode(principal);
    const id = parsePublicId('scimToken', publicId);
    if (id === null) throw AppError.notFound('SCIM token', publicId);
    return this.sql.transaction(async (tx) => {
      const record = await this.tokens.findForUpdate(tx, principal.organizationId, id);
      if (!record) throw AppError.notFound('SCIM token', publicId);
      const wasRevoked = record.revokedAt;
      const revokedAt = wasRevoked ?? new Date();
      if (wasRevoked === null) {
        await this.tokens.revoke(tx, principal.organizationId, id, revokedAt);
      }
      await AuditLog.record(tx, principal, {
        action: 'scim_token.revoked',
        actor: principal,
        target: { type: 'scim_token', id: toPublicId('scimToken', id) },
        changes: auditChanges(
          { revoked_at: wasRevoked?.toISOString() ?? null },
          { revoked_at: revokedAt.toISOString() },
        ),
      });
      return { ...record, revokedAt };
    });
  }

  /**
   * Whose a presented bearer token is: null for one that is malformed (no
   * look-up), unknown or revoked. Found by its hash, through the unique
   * index. Notes the use at most once a minute; failing to note it never
   * fails the call.
   */
  async authenticate(token: string): Promise<ScimTokenHolder | null> {
    if (!isScimTokenShaped(token)) return null;
    const record = await this.tokens.findByHashAcrossTenants(hashScimToken(token));
    if (!record || record.revokedAt !== null) return null;
    await this.touch(record);
    return {
      organizationId: record.organizationId,
      tokenId: toPublicId('scimToken', record.id),
    };
  }

  private async touch(record: ScimToken): Promise<void> {
    if (
      record.lastUsedAt !== null &&
      Date.now() - record.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS
    ) {
      return;
    }
    try {
      await this.tokens.recordUse(record.organizationId, record.id);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not record SCIM token use');
    }
  }
}

/** The same refusal as a live-only route's, for callers that are not routes. */
function requireLiveMode(principal: Principal): void {
  if (principal.mode === 'live') return;
  throw new AppError('FORBIDDEN', 'SCIM tokens need a live-mode credential', {
    field: 'mode',
    issue:
      'a SCIM token reaches the people of both modes: test-mode credentials may list tokens but never create or revoke one',
  });
}

function tooManyTokens(): AppError {
  return new AppError(
    'CONFLICT',
    `The organisation already has ${MAX_LIVE_SCIM_TOKENS} live SCIM tokens; revoke one it no longer uses before creating another`,
    {
      field: 'scim_tokens',
      issue: `at most ${MAX_LIVE_SCIM_TOKENS} unrevoked tokens per organisation`,
    },
  );
}
