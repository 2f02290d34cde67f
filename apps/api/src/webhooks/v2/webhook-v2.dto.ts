import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsDateString, IsOptional, IsString, MaxLength } from 'class-validator';
import type { DeliveryState } from '#webhooks';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';
import { DeliveryDto, DeliveryStateFilter, WebhookDto } from '../webhook.dto.js';

export class WebhookListV2Dto extends V2List(WebhookDto) {}

export class WebhookSourceAddressesDto {
  @ApiProperty({
    type: [String],
    example: ['203.0.113.10', '203.0.113.11'],
    description:
      "The IP addresses every webhook delivery comes from, for a receiver to allow-list. Empty when the deployment publishes none (WEBHOOK_SOURCE_ADDRESSES unset): deliveries then come from its host's default address, which may change.",
  })
  addresses!: string[];
}
export class DeliveryListV2Dto extends V2List(DeliveryDto) {}

export class DeliveryListV2QueryDto extends V2ListQueryDto {
  @DeliveryStateFilter()
  state?: DeliveryState;
}

const booleanQuery = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;

export class ReplayQueryDto {
  @ApiProperty({ example: 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz', description: 'The endpoint to send to' })
  @IsString({ message: 'must be a webhook id' })
  @MaxLength(64, { message: 'must be a webhook id' })
  webhook_id!: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events created at or after this time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events created before this time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  to?: string;

  @ApiPropertyOptional({
    example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'Events after this one (instead of, or with, `from`)',
  })
  @IsOptional()
  @IsString({ message: 'must be an event id' })
  @MaxLength(64, { message: 'must be an event id' })
  since_event_id?: string;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Also send events the endpoint already acknowledged',
  })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean({ message: 'must be true or false' })
  include_delivered?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Count what would be sent, send nothing',
  })
  @IsOptional()
  @Transform(booleanQuery)
  @IsBoolean({ message: 'must be true or false' })
  dry_run?: boolean;
}

export class ReplayResultDto {
  @ApiProperty({ type: String, nullable: true, description: 'Null when nothing was scheduled' })
  replay_id!: string | null;

  @ApiProperty()
  webhook_id!: string;

  @ApiProperty({ type: 'integer', description: 'Events in the range the endpoint subscribes to' })
  matched!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Deliveries scheduled (or, on a dry run, that would be)',
  })
  scheduled!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Events skipped because the endpoint acknowledged them',
  })
  skipped_acknowledged!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Events skipped because a delivery to it is pending',
  })
  skipped_pending!: number;

  @ApiProperty()
  dry_run!: boolean;
}
