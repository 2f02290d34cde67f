import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { TargetsController } from './targets.controller.js';

@Module({
  imports: [AnalystsModule],
  controllers: [TargetsController],
})
export class TargetsHttpModule {}
