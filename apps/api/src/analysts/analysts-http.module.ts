import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { AnalystTrackRecords } from './v2/analyst-track-records-v2.js';
import { AnalystsV2Controller } from './v2/analysts-v2.controller.js';

/** The people API (/v2/analysts): members, their roles, invitations and track records. */
@Module({
  imports: [AnalystsModule],
  controllers: [AnalystsV2Controller],
  providers: [AnalystTrackRecords],
})
export class AnalystsHttpModule {}
