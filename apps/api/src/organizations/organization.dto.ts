import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { PLANS, TIERS, type Plan, type Tier } from '#database';
import { oneOf } from '../http/validation-messages.js';
import { V2List } from '../http/v2-list.js';

export class CreateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Acme Research' })
  @IsString({ message: 'must be a string' })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  name!: string;

  @ApiPropertyOptional({ enum: PLANS, default: 'free' })
  @IsOptional()
  @IsIn(PLANS, oneOf(PLANS))
  plan?: Plan;

  @ApiPropertyOptional({ enum: TIERS, default: 'basic' })
  @IsOptional()
  @IsIn(TIERS, oneOf(TIERS))
  tier?: Tier;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 100000,
    description:
      "Concurrent sessions (initiated or in progress) allowed per mode, for an agreement above the plan's (free 5, pro 50, enterprise 500). Default: the plan's",
  })
  @IsOptional()
  @IsInt({ message: 'must be an integer from 1 to 100000' })
  @Min(1, { message: 'must be an integer from 1 to 100000' })
  @Max(100000, { message: 'must be an integer from 1 to 100000' })
  max_concurrent_sessions?: number;
}

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
