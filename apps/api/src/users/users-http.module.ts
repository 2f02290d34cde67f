import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { UserProfileController } from './v1/user-profile-v1.controller.js';

@Module({
  imports: [AuthModule],
  controllers: [UserProfileController],
})
export class UsersHttpModule {}
