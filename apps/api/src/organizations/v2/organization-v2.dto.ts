import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PLANS, TIERS, type Plan, type Tier } from '#organizations';
import { OptionalOrNull } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';
import { V2List } from '../../http/v2-list.js';
import { SingleLineText } from '../../http/text-rules.js';

const AGREED = { message: 'must be an integer from 1 to 100000000, or null' };

/** An agreed number: a positive integer, or null (in an update) to fall back to the plan's or tier's. */
const AgreedNumber = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: 100_000_000,
      nullable: true,
      description,
    }),
    OptionalOrNull(),
    IsInt(AGREED),
    Min(1, AGREED),
    Max(100_000_000, AGREED),
  );

export const CREATE_ORGANIZATION_EXAMPLES: RequestExamples = {
  pro: {
    summary: 'A pro organisation on the professional tier',
    value: { name: 'Acme Research', plan: 'pro', tier: 'professional' },
  },
};

export const UPDATE_ORGANIZATION_EXAMPLES: RequestExamples = {
  agreement: {
    summary: 'Enterprise plan with an agreed number of concurrent sessions',
    value: { plan: 'enterprise', max_concurrent_sessions: 1000 },
  },
};

export class CreateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Acme Research' })
  @IsString({ message: 'must be a string' })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  @SingleLineText()
  name!: string;

  @ApiPropertyOptional({ enum: PLANS, default: 'free' })
  @IsOptional()
  @IsIn(PLANS, oneOf(PLANS))
  plan?: Plan;

  @ApiPropertyOptional({ enum: TIERS, default: 'basic' })
  @IsOptional()
  @IsIn(TIERS, oneOf(TIERS))
  tier?: Tier;

  @AgreedNumber(
    'Concurrent sessions (initiated or in progress) allowed per mode, above the plan’s 500; enterprise plan only',
  )
  max_concurrent_sessions?: number | null;

  @AgreedNumber('Requests per minute per mode, above the plan’s 6,000; enterprise plan only')
  requests_per_minute?: number | null;

  @AgreedNumber(
    'Requests per hour per mode; enterprise or custom tier only (custom: unlimited unless set)',
  )
  requests_per_hour?: number | null;

  @AgreedNumber(
    'Requests per day per mode; enterprise or custom tier only (custom: unlimited unless set)',
  )
  requests_per_day?: number | null;
}

/** Body of PATCH /v2/enterprise/organizations/{id}: any of the creation fields; null clears an agreed number. */
export class UpdateOrganizationDto extends PartialType(CreateOrganizationDto) {}

export class OrganizationDto {
  @ApiProperty({ example: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: PLANS })
  plan!: string;

  @ApiProperty({ enum: TIERS })
  tier!: string;

  @ApiProperty({
    type: 'integer',
    description: 'Concurrent sessions (initiated or in progress) allowed per mode',
  })
  max_concurrent_sessions!: number;

  @ApiProperty({ type: 'integer', description: 'Requests per minute allowed per mode' })
  requests_per_minute!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Requests per hour allowed per mode; null is unlimited',
  })
  requests_per_hour!: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Requests per day allowed per mode; null is unlimited',
  })
  requests_per_day!: number | null;

  @ApiProperty({ description: 'The operator organisation of this deployment' })
  is_operator!: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class CreatedOrganizationDto extends OrganizationDto {
  @ApiProperty({
    description: 'A live API key with every scope for the new organisation. Shown only here.',
    example: 'sk_live_…',
  })
  admin_api_key!: string;
}

export class OrganizationListDto extends V2List(OrganizationDto) {}
