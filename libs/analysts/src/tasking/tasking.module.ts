import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { AnalystRepositoriesModule } from '../repositories.module.js';
import { JudgingModule } from '../judging/judging.module.js';
import { TargetPoolModule } from '../targets/targets.module.js';
import { AnalystWork } from './analyst-work.js';
import { AssignmentChanges } from './assignment-changes.js';
import { AssignmentsService } from './assignments.service.js';
import { SubmittedSketches } from './submitted-sketches.js';
import { TaskingService } from './tasking.service.js';

/** Blind tasking: taskings, assignments and submissions, and what the kinds of work share of it. */
@Module({
  imports: [
    AnalystRepositoriesModule,
    DatabaseModule,
    AuthModule,
    EventsModule,
    JudgingModule,
    TargetPoolModule,
  ],
  providers: [
    AssignmentChanges,
    TaskingService,
    AssignmentsService,
    AnalystWork,
    SubmittedSketches,
  ],
  exports: [TaskingService, AssignmentsService, AnalystWork, SubmittedSketches],
})
export class TaskingModule {}
