import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';

/** Analytics over the history: rates, trends, performance and the dashboard (issue 16). */
@Module({
  imports: [DatabaseModule],
})
export class AnalyticsModule {}
