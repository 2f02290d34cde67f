import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { AssignmentsV2Controller } from './v2/assignments-v2.controller.js';

@Module({
  imports: [AnalystsModule],
  controllers: [AssignmentsV2Controller],
})
export class AssignmentsHttpModule {}
