import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsOptional } from 'class-validator';
import { EVENT_TYPES } from '#events';
import { oneOf } from '../../http/validation-messages.js';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';

export class EventDto {
  @ApiProperty({ example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty({ enum: EVENT_TYPES })
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
