import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { OrganizationsModule } from '#organizations';
import { JudgingModule } from '../judging/judging.module.js';
import { TaskingModule } from '../tasking/tasking.module.js';
import { InvitationsService } from './invitations.service.js';
import { MemberConsequences } from './member-consequences.js';
import { MembersService } from './members.service.js';

/**
 * The people of an organisation: members with roles, and their invitations.
 * A change of roles moves work (tasking, judging), so this module builds on
 * theirs; they must never import it back.
 */
@Module({
  imports: [DatabaseModule, AuthModule, OrganizationsModule, TaskingModule, JudgingModule],
  providers: [MembersService, InvitationsService, MemberConsequences],
  exports: [MembersService, InvitationsService, MemberConsequences],
})
export class MembersModule {}
