import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '#database';
import { ANALYST_ENTITIES } from './entities.js';
import { JudgedTrialsRepository } from './judging/judged-trials.repository.js';
import { JudgingTasksRepository } from './judging/judging-tasks.repository.js';
import { TargetPhotosRepository } from './targets/target-photos.repository.js';
import { TargetsRepository } from './targets/targets.repository.js';
import { AssignmentSketchesRepository } from './tasking/assignment-sketches.repository.js';
import { AssignmentsRepository } from './tasking/assignments.repository.js';
import { WorkTaskingsRepository } from './tasking/work-taskings.repository.js';

const REPOSITORIES = [
  WorkTaskingsRepository,
  AssignmentsRepository,
  AssignmentSketchesRepository,
  TargetsRepository,
  TargetPhotosRepository,
  JudgingTasksRepository,
  JudgedTrialsRepository,
];

/**
 * The analyst tables and their repositories, for each part of the lib:
 * judging reads submissions and tasking opens judging, so the tables sit
 * below both rather than in either.
 */
@Module({
  imports: [TypeOrmModule.forFeature(ANALYST_ENTITIES), DatabaseModule],
  providers: REPOSITORIES,
  exports: REPOSITORIES,
})
export class AnalystRepositoriesModule {}
