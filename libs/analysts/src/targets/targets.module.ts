import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { OutboundModule } from '#outbound';
import { AnalystRepositoriesModule } from '../repositories.module.js';
import { TargetPool } from './target-pool.js';
import { TargetsService } from './targets.service.js';

/** The organisation's target pool: managed through TargetsService, drawn from through TargetPool. */
@Module({
  imports: [AnalystRepositoriesModule, DatabaseModule, OutboundModule],
  providers: [TargetsService, TargetPool],
  exports: [TargetsService, TargetPool],
})
export class TargetPoolModule {}
