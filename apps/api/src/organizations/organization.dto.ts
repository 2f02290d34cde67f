import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { PLANS, TIERS, type Plan, type Tier } from '#database';
import { oneOf } from '../http/validation-messages.js';

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

const PER_PAGE = { message: 'must be an integer between 1 and 100' };

export class OrganizationListQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt(PER_PAGE)
  @Min(1, PER_PAGE)
  @Max(100, PER_PAGE)
  per_page?: number;

  @ApiPropertyOptional({ description: 'The `next_cursor` of the previous page' })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'is not a cursor this service issued' })
  cursor?: string;
}

export class PaginationDto {
  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  per_page!: number;

  @ApiProperty({ type: 'integer' })
  total!: number;

  @ApiProperty({ type: 'integer' })
  total_pages!: number;

  @ApiProperty()
  has_next!: boolean;

  @ApiProperty()
  has_prev!: boolean;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last',
  })
  next_cursor!: string | null;
}

export class OrganizationListDto {
  @ApiProperty({ type: [OrganizationDto] })
  data!: OrganizationDto[];

  @ApiProperty({ type: PaginationDto })
  pagination!: PaginationDto;
}
