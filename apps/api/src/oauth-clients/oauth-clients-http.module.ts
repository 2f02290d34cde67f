import { Module } from '@nestjs/common';
import { AuthModule } from '#auth';
import { OAuthClientsController } from './v1/oauth-clients-v1.controller.js';

@Module({
  imports: [AuthModule],
  controllers: [OAuthClientsController],
})
export class OAuthClientsHttpModule {}
