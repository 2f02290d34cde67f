import { TypeOrmModule } from '@nestjs/typeorm';
import { Module } from '@nestjs/common';
import { AnalystDeadlinesModule, WorkModule } from '#work';
import { AnalystSessions } from './analyst-sessions.js';
import { SessionKind } from './session-kind.js';
import { SessionMerger } from './session-merger.js';
import { SessionRunner } from './session-runner.js';
import { SessionScheduler } from './session-scheduler.js';
import { SessionSweeper } from './session-sweeper.js';
import { SessionTemplatesRepository } from './session-templates.repository.js';
import { SessionTemplatesService } from './session-templates.service.js';
import { SessionListsService } from './session-lists.service.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionReadModelRepository } from './session-read-model.repository.js';
import { SessionsService } from './sessions.service.js';
import { SESSION_ENTITIES } from './entities.js';

const SESSIONS = [
  SessionsRepository,
  SessionReadModelRepository,
  SessionTemplatesRepository,
  AnalystSessions,
  SessionKind,
  SessionsService,
  SessionListsService,
  SessionTemplatesService,
  SessionMerger,
];

/** Sessions for API callers (both apps). */
@Module({
  imports: [TypeOrmModule.forFeature(SESSION_ENTITIES), WorkModule],
  providers: SESSIONS,
  exports: SESSIONS,
})
export class SessionsModule {}

/** The work behind sessions: the worker only. */
@Module({
  imports: [SessionsModule, WorkModule, AnalystDeadlinesModule],
  providers: [SessionRunner, SessionScheduler, SessionSweeper],
  exports: [SessionRunner, SessionSweeper],
})
export class SessionsWorkModule {}
