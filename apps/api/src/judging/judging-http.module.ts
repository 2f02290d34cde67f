import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { JudgingTasksController } from './v2/judging-tasks-v2.controller.js';

/** Judges' judging tasks: reading them blind and ranking them (v2). */
@Module({
  imports: [AnalystsModule],
  controllers: [JudgingTasksController],
})
export class JudgingHttpModule {}
