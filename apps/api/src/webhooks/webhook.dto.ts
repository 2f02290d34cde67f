import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import {
  DELIVERY_ORIGINS,
  DELIVERY_STATES,
  ENVELOPE_FORMATS,
  WEBHOOK_STATUSES,
  type DeliveryOrigin,
  type DeliveryState,
  type EnvelopeFormat,
  type WebhookStatus,
} from '#webhooks';
import { EVENT_TYPES, RESERVED_EVENTS_NOTE } from '#events';
import {
  MAX_ROTATION_OVERLAP_SECONDS,
  MAX_SUBSCRIPTIONS,
  SECRET_LENGTH,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
} from '#webhooks';
import { Optional } from '../http/dto-decorators.js';
import type { RequestExamples } from '../http/request-examples.js';
import { oneOf } from '../http/validation-messages.js';

const SECRET_RULE = `${SECRET_LENGTH.min} to ${SECRET_LENGTH.max} printable characters without spaces`;

const UrlField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      example: 'https://example.com/hooks/sas',
      maxLength: 2048,
      description:
        'HTTPS address of the receiver. Its host must resolve to public addresses (checked again at every delivery).',
    }),
    ...(required ? [] : [Optional()]),
    IsString({ message: 'must be a string' }),
  );

const EventsField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      type: [String],
      example: ['session.completed', 'session.failed'],
      description: `Event names (${EVENT_TYPES.join(', ')}), or "*" for all of them. ${RESERVED_EVENTS_NOTE}`,
      minItems: 1,
      maxItems: MAX_SUBSCRIPTIONS,
    }),
    ...(required ? [] : [Optional()]),
    IsArray({ message: 'must be an array of event names' }),
    ArrayMinSize(1, { message: 'must name at least one event' }),
    ArrayMaxSize(MAX_SUBSCRIPTIONS, { message: `can name at most ${MAX_SUBSCRIPTIONS} events` }),
    IsString({ each: true, message: 'each event must be a string' }),
  );

const ActiveField = () =>
  applyDecorators(
    ApiPropertyOptional({
      default: true,
      description:
        'false stops deliveries (status `disabled`); true re-enables a failed or disabled webhook',
    }),
    Optional(),
    IsBoolean({ message: 'must be true or false' }),
  );

const EnvelopeField = () =>
  applyDecorators(
    ApiPropertyOptional({
      enum: ENVELOPE_FORMATS,
      default: 'standard',
      description:
        '`standard`: the full envelope (id, type, created_at, data, livemode, pending_webhooks). `v1`: the short version 1 envelope (id, event, data, timestamp).',
    }),
    Optional(),
    IsIn(ENVELOPE_FORMATS, oneOf(ENVELOPE_FORMATS)),
  );

const SecretField = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      minLength: SECRET_LENGTH.min,
      maxLength: SECRET_LENGTH.max,
      description,
    }),
    Optional(),
    IsString({ message: 'must be a string' }),
    Matches(new RegExp(`^[\\x21-\\x7e]{${SECRET_LENGTH.min},${SECRET_LENGTH.max}}$`), {
      message: `must be ${SECRET_RULE}`,
    }),
  );

export const CREATE_WEBHOOK_EXAMPLES: RequestExamples = {
  sessions: {
    summary: 'Session outcomes, signed with a generated secret',
    value: {
      url: 'https://example.com/hooks/sas',
      events: ['session.completed', 'session.failed'],
    },
  },
};

export const UPDATE_WEBHOOK_EXAMPLES: RequestExamples = {
  pause: { summary: 'Stop deliveries for now', value: { active: false } },
};

export const ROTATE_WEBHOOK_SECRET_EXAMPLES: RequestExamples = {
  overlap: {
    summary: 'A generated secret; both are signed with for an hour',
    value: { overlap_seconds: 3600 },
  },
};

export const TEST_WEBHOOK_EXAMPLES: RequestExamples = {
  completed: {
    summary: 'A sample session.completed with your own values',
    value: {
      event_type: 'session.completed',
      test_data: { session_id: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', confidence_score: 0.9 },
    },
  },
};

export class CreateWebhookDto {
  @UrlField(true)
  url!: string;

  @EventsField(true)
  events!: string[];

  @SecretField(
    'Signing secret. Omit it to get a strong generated one (`whsec_…`, shown once in the response).',
  )
  secret?: string;

  @ActiveField()
  active?: boolean;

  @EnvelopeField()
  envelope_format?: EnvelopeFormat;
}

export class UpdateWebhookDto {
  @UrlField(false)
  url?: string;

  @EventsField(false)
  events?: string[];

  @ActiveField()
  active?: boolean;

  @EnvelopeField()
  envelope_format?: EnvelopeFormat;
}

export class RotateWebhookSecretDto {
  @SecretField('The new secret; omit it to get a generated one')
  secret?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_ROTATION_OVERLAP_SECONDS,
    default: DEFAULT_ROTATION_OVERLAP_SECONDS,
    description: 'Seconds during which deliveries are signed with both the old and the new secret',
  })
  @Optional()
  @IsInt({ message: 'must be a whole number of seconds' })
  @Min(0, { message: 'must not be negative' })
  @Max(MAX_ROTATION_OVERLAP_SECONDS, {
    message: `must be at most ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)`,
  })
  overlap_seconds?: number;
}

export class TestWebhookDto {
  @ApiPropertyOptional({ enum: EVENT_TYPES, default: 'session.completed' })
  @Optional()
  @IsIn(EVENT_TYPES, oneOf(EVENT_TYPES))
  event_type?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    example: { session_id: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', confidence_score: 0.9 },
    description: "Fields laid over the event's sample data",
  })
  @Optional()
  @IsObject({ message: 'must be a JSON object' })
  test_data?: Record<string, unknown>;
}

export class WebhookDto {
  @ApiProperty({ example: 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  webhook_id!: string;

  @ApiProperty({ example: 'https://example.com/hooks/sas' })
  url!: string;

  @ApiProperty({ type: [String], example: ['session.completed'] })
  events!: string[];

  @ApiProperty()
  active!: boolean;

  @ApiProperty({
    enum: WEBHOOK_STATUSES,
    description:
      '`enabled`; `failed` after every attempt of a delivery failed (deliveries go on; a success makes it `enabled` again); `disabled` when deactivated or the receiver answered 410 Gone',
  })
  status!: WebhookStatus;

  @ApiProperty({ type: String, nullable: true, description: 'Why the status is not `enabled`' })
  status_reason!: string | null;

  @ApiProperty({ enum: ENVELOPE_FORMATS })
  envelope_format!: EnvelopeFormat;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until then deliveries are also signed with the previous secret',
  })
  previous_secret_expires_at!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class WebhookWithSecretDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret. Shown only here.', example: 'whsec_…' })
  secret!: string;
}

export class DeliveryAttemptDto {
  @ApiProperty({ type: 'integer', example: 1 })
  attempt!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'Null when no answer came' })
  status_code!: number | null;

  @ApiProperty({ type: 'integer', description: 'Milliseconds until the answer (or the failure)' })
  latency_ms!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The first KiB of the answer' })
  response_body!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why no answer came (timeout, TLS…)' })
  error!: string | null;
}

export class DeliveryDto {
  @ApiProperty({ example: 'dlv_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  delivery_id!: string;

  @ApiProperty({ example: 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  webhook_id!: string;

  @ApiProperty({ example: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  event_id!: string;

  @ApiProperty({ example: 'session.completed' })
  event_type!: string;

  @ApiProperty({ enum: DELIVERY_ORIGINS })
  origin!: DeliveryOrigin;

  @ApiProperty({ enum: DELIVERY_STATES })
  state!: DeliveryState;

  @ApiProperty({ type: 'integer' })
  attempt_count!: number;

  @ApiProperty({ type: 'integer' })
  max_attempts!: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  next_attempt_at!: string | null;

  @ApiProperty({ type: 'integer', nullable: true })
  last_status_code!: number | null;

  @ApiProperty({ type: String, nullable: true })
  last_error!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'rpl_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  replay_id!: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at!: string | null;

  @ApiProperty({ type: [DeliveryAttemptDto] })
  attempts!: DeliveryAttemptDto[];
}

/** The `state` filter of both versions' delivery lists. */
export const DeliveryStateFilter = () =>
  applyDecorators(
    ApiPropertyOptional({ enum: DELIVERY_STATES }),
    IsOptional(),
    IsIn(DELIVERY_STATES, oneOf(DELIVERY_STATES)),
  );
