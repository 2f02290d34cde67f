import { Injectable } from '@nestjs/common';
import { WorkListsService } from '#work';
import type { SessionEntity } from './entities/session.entity.js';
import { SessionsRepository, type SessionFilter } from './sessions.repository.js';

/** Version 1 lists sessions of one status and type at the most. */
type SessionListFilter = Pick<SessionFilter, 'status' | 'type'>;

/** The lists of a tenant's sessions (WorkListsService), read from a replica when one is usable. */
@Injectable()
export class SessionListsService extends WorkListsService<
  SessionEntity,
  SessionListFilter,
  SessionFilter
> {
  constructor(sessions: SessionsRepository) {
    super(sessions);
  }
}
