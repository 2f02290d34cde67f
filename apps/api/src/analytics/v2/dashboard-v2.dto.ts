import { ApiProperty } from '@nestjs/swagger';
import { RECENT_ACTIVITY } from '#analytics';
import { TypeGroupDto } from '../case-group.dto.js';

export class WindowCountsDto {
  @ApiProperty({ type: 'integer', description: 'Created in the last 24 hours' })
  last_24h!: number;

  @ApiProperty({ type: 'integer', description: 'Created in the last 7 days' })
  last_7d!: number;

  @ApiProperty({ type: 'integer', description: 'Created in the last 30 days' })
  last_30d!: number;
}

export class WorkCountDto {
  @ApiProperty({ enum: ['session', 'analysis', 'dowsing_query'] })
  kind!: string;

  @ApiProperty({ example: 'completed', description: 'The work’s status now' })
  status!: string;

  @ApiProperty({ type: WindowCountsDto })
  counts!: WindowCountsDto;
}

export class WorkDayDto {
  @ApiProperty({
    format: 'date-time',
    description:
      'Start of the 24 hours counted: one of the 30 periods ending at generated_at, the last one the last 24 hours',
  })
  start!: string;

  @ApiProperty({ enum: ['session', 'analysis', 'dowsing_query'] })
  kind!: string;

  @ApiProperty({ example: 'completed', description: 'The work’s status now' })
  status!: string;

  @ApiProperty({ type: 'integer', description: 'Created in these 24 hours' })
  count!: number;
}

export class RequestWindowDto {
  @ApiProperty({ enum: ['minute', 'hour', 'day'] })
  window!: string;

  @ApiProperty({ enum: ['requests_per_minute', 'requests_per_hour', 'requests_per_day'] })
  setting!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description:
      'Requests counted in the current window; null when rate limits are off or Redis did not answer',
  })
  used!: number | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The limit; null is unlimited' })
  limit!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Seconds until the window starts afresh; null when nothing is counted',
  })
  reset_seconds!: number | null;
}

export class ConcurrentUsageDto {
  @ApiProperty({ type: 'integer', description: 'Sessions initiated or in progress now' })
  sessions!: number;

  @ApiProperty({ type: 'integer', description: 'Analyses queued or processing now' })
  analyses!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The plan’s concurrent limit, for each kind on its own; null when unknown',
  })
  limit!: number | null;
}

export class UsageDto {
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['free', 'pro', 'enterprise', null],
    description: 'The plan the limits come from',
  })
  plan!: string | null;

  @ApiProperty({
    type: [RequestWindowDto],
    description:
      'Requests against the plan’s per-minute limit and the tier’s hourly and daily quotas',
  })
  requests!: RequestWindowDto[];

  @ApiProperty({ type: ConcurrentUsageDto })
  concurrent!: ConcurrentUsageDto;
}

export class WebhookHealthDto {
  @ApiProperty({ example: 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  webhook_id!: string;

  @ApiProperty()
  url!: string;

  @ApiProperty({ description: 'The endpoint’s status (failed once retries were exhausted)' })
  status!: string;

  @ApiProperty({ type: 'integer', description: 'Deliveries of the last 24 hours that succeeded' })
  succeeded!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Deliveries of the last 24 hours that failed for good',
  })
  failed!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Deliveries of the last 24 hours still being retried',
  })
  pending!: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: 1,
    description:
      'succeeded / (succeeded + failed): a share of finished deliveries, with its counts beside it (no chance baseline applies); null when none finished',
  })
  success_share!: number | null;
}

export class WebhookHourDto {
  @ApiProperty({
    format: 'date-time',
    description: 'Start of the hour: one of the 24 hours ending at generated_at',
  })
  start!: string;

  @ApiProperty({ type: 'integer', description: 'Deliveries created in the hour that succeeded' })
  succeeded!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Deliveries created in the hour that failed for good',
  })
  failed!: number;

  @ApiProperty({
    type: 'integer',
    description: 'Deliveries created in the hour still being retried',
  })
  pending!: number;
}

export class WebhookHealthSummaryDto {
  @ApiProperty({ type: [WebhookHealthDto], description: 'Every endpoint, oldest first' })
  endpoints!: WebhookHealthDto[];

  @ApiProperty({
    type: [WebhookHourDto],
    description:
      'Deliveries to all endpoints in each of the last 24 hours by state, oldest first, every hour listed: they sum to the endpoints’ figures',
  })
  per_hour!: WebhookHourDto[];

  @ApiProperty({
    type: [String],
    description:
      'Ids of endpoints that are failed or had a delivery fail for good in the last 24 hours',
  })
  failing!: string[];
}

export class ActivityDto {
  @ApiProperty({ example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  event_id!: string;

  @ApiProperty({ example: 'session.completed' })
  type!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class DashboardDto {
  @ApiProperty({ format: 'date-time', description: 'The moment the windows end' })
  generated_at!: string;

  @ApiProperty({
    type: [WorkCountDto],
    description:
      'Work created in each window by kind and current status (kinds and statuses with none are left out)',
  })
  work!: WorkCountDto[];

  @ApiProperty({
    type: [WorkDayDto],
    description:
      'The same work per 24 hours of the last 30 days, oldest first (periods, kinds and statuses with none are left out)',
  })
  work_per_day!: WorkDayDto[];

  @ApiProperty({
    type: [TypeGroupDto],
    description:
      'Cases of the last 30 days per type with their hit rates (rate objects against chance), from the rollups; classified cases never counted',
  })
  success_rates!: TypeGroupDto[];

  @ApiProperty({ type: UsageDto })
  usage!: UsageDto;

  @ApiProperty({ type: WebhookHealthSummaryDto })
  webhooks!: WebhookHealthSummaryDto;

  @ApiProperty({
    type: [ActivityDto],
    description: `The latest ${RECENT_ACTIVITY} events of your organisation in this mode, newest first`,
  })
  recent_activity!: ActivityDto[];
}
