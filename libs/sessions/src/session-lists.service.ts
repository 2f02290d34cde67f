import { Injectable } from '@nestjs/common';
import type { SessionStatus, SessionType, Tenant } from '#common';
import { Sql, type KeysetPage, type PageRequest } from '#database';
import type { SessionEntity } from './entities/session.entity.js';
import { SessionsRepository, type SessionFilter } from './sessions.repository.js';

/**
 * The lists of a tenant's sessions: v1's offset pages and v2's filtered
 * keyset pages, read from a replica that has replayed the tenant's own
 * writes when one is configured (Sql.reader).
 */
@Injectable()
export class SessionListsService {
  constructor(
    private readonly sql: Sql,
    private readonly sessions: SessionsRepository,
  ) {}

  /** A page of the caller's sessions, newest first, optionally of one status and type. */
  async list(
    tenant: Tenant,
    query: { status?: SessionStatus | undefined; type?: SessionType | undefined },
    page: { limit: number; offset: number },
  ): Promise<{ records: SessionEntity[]; total: number }> {
    return this.sessions.list(tenant, query, page, await this.sql.reader(tenant));
  }

  /** A keyset page of the caller's sessions, newest first, with the version 2 filters. */
  async page(
    tenant: Tenant,
    filter: SessionFilter,
    request: PageRequest,
  ): Promise<KeysetPage<SessionEntity>> {
    return this.sessions.page(tenant, filter, request, await this.sql.reader(tenant));
  }
}
