import { Module } from '@nestjs/common';
import { ReportsModule } from '#reports';
import { ReportsV2Controller } from './v2/reports-v2.controller.js';

@Module({
  imports: [ReportsModule],
  controllers: [ReportsV2Controller],
})
export class ReportsHttpModule {}
