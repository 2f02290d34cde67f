import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { AnalystRepositoriesModule } from '../repositories.module.js';
import { TargetPoolModule } from '../targets/targets.module.js';
import { WaitingJudgingTasks } from './judge-assignment-task.js';
import { JudgingTasks } from './judging-tasks.js';
import { JudgingService } from './judging.service.js';
import { TrackRecords } from './track-records.js';

/** Blind judging and track records (docs/analysts.md), for the API and the worker alike. */
@Module({
  imports: [AnalystRepositoriesModule, DatabaseModule, AuthModule, EventsModule, TargetPoolModule],
  providers: [JudgingService, JudgingTasks, TrackRecords],
  exports: [JudgingService, JudgingTasks, TrackRecords],
})
export class JudgingModule {}

/** The worker's side: waiting judging tasks given out periodically (`judging.assign-waiting`). */
@Module({
  imports: [AnalystRepositoriesModule, DatabaseModule, JudgingModule],
  providers: [WaitingJudgingTasks],
  exports: [WaitingJudgingTasks],
})
export class JudgingWorkModule {}
