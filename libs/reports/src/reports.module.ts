import { Module } from '@nestjs/common';
import { DatabaseModule } from '#database';

/** Reports built by the worker as PDF, CSV or JSON, and kept for download (issue 16). */
@Module({
  imports: [DatabaseModule],
})
export class ReportsModule {}
