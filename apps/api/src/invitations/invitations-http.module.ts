import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';

@Module({
  imports: [AnalystsModule],
  controllers: [],
})
export class InvitationsHttpModule {}
