import { Module } from '@nestjs/common';
import { EventsModule } from '#events';
import { EventsV2Controller } from './v2/events-v2.controller.js';

@Module({
  imports: [EventsModule],
  controllers: [EventsV2Controller],
})
export class EventsHttpModule {}
