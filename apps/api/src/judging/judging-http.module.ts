import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { JudgingTasksController } from './judging-tasks.controller.js';

/** Judges' judging tasks: reading them blind and ranking them (v2). */
@Module({
  imports: [AnalystsModule],
  controllers: [JudgingTasksController],
})
export class JudgingHttpModule {}
