import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { TargetsController } from './v2/targets-v2.controller.js';

@Module({
  imports: [AnalystsModule],
  controllers: [TargetsController],
})
export class TargetsHttpModule {}
