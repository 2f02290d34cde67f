import { Module } from '@nestjs/common';
import { AnalystsModule } from '#analysts';
import { InvitationsController } from './invitations.controller.js';

/** The public pages of invitations: where a new member sets their password. */
@Module({
  imports: [AnalystsModule],
  controllers: [InvitationsController],
})
export class InvitationsHttpModule {}
