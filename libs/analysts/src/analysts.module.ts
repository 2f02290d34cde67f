import { Module } from '@nestjs/common';
import { JudgingModule } from './judging/judging.module.js';
import { MembersModule } from './members/members.module.js';
import { TargetPoolModule } from './targets/targets.module.js';
import { TaskingModule } from './tasking/tasking.module.js';

/** Everything of the analyst workflow, for the API and the worker alike. */
@Module({
  imports: [MembersModule, TargetPoolModule, TaskingModule, JudgingModule],
  exports: [MembersModule, TargetPoolModule, TaskingModule, JudgingModule],
})
export class AnalystsModule {}
