import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional } from 'class-validator';
import { EVENT_TYPES, RESERVED_EVENTS_NOTE, type EventType } from '#events';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';

export class EventDto {
  @ApiProperty({ example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES, description: `The event name. ${RESERVED_EVENTS_NOTE}` })
  type!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  data!: Record<string, unknown>;

  @ApiProperty()
  livemode!: boolean;

  @ApiProperty({ type: 'integer' })
  pending_webhooks!: number;
}

export class EventListV2Dto extends V2List(EventDto) {}

export class EventListQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @IsOptional()
  @IsIn(EVENT_TYPES, oneOf(EVENT_TYPES))
  type?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  created_after?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  created_before?: string;
}

export class TriggerEventDto {
  @ApiProperty({
    enum: EVENT_TYPES,
    example: 'session.completed',
    description: 'The event type to send a sample of',
  })
  @IsIn(EVENT_TYPES, oneOf(EVENT_TYPES))
  type!: EventType;
}

export const TRIGGER_EVENT_EXAMPLES: RequestExamples = {
  completed: {
    summary: 'A sample session.completed',
    value: { type: 'session.completed' },
  },
};

export class TriggeredEventDto {
  @ApiProperty({ example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'session.completed' })
  type!: string;

  @ApiProperty({ description: 'true when triggered with a live credential' })
  livemode!: boolean;
}
