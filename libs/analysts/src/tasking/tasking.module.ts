import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { TaskingService } from './tasking.service.js';

/** Blind tasking: taskings, assignments and submissions, for the work kinds to build on. */
@Module({
  imports: [DatabaseModule, EventsModule],
  providers: [TaskingService],
  exports: [TaskingService],
})
export class TaskingModule {}
