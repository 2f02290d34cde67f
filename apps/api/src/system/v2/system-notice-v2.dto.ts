import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsIn, IsString, Length } from 'class-validator';
import { SYSTEM_NOTICE_TYPES, type SystemNoticeType } from '#events';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';

const SEVERITIES = ['info', 'warning', 'critical'] as const;

export class CreateSystemNoticeDto {
  @ApiProperty({ enum: SYSTEM_NOTICE_TYPES, example: 'system.maintenance_scheduled' })
  @IsIn(SYSTEM_NOTICE_TYPES, oneOf(SYSTEM_NOTICE_TYPES))
  type!: SystemNoticeType;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Database upgrade' })
  @IsString({ message: 'must be a string' })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  title!: string;

  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'Writes pause for up to 5 minutes.' })
  @IsString({ message: 'must be a string' })
  @Length(1, 4000, { message: 'must be 1 to 4000 characters' })
  message!: string;

  @ApiPropertyOptional({ enum: SEVERITIES, default: 'info' })
  @Optional()
  @IsIn(SEVERITIES, oneOf(SEVERITIES))
  severity?: (typeof SEVERITIES)[number];

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  starts_at?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  ends_at?: string;

  @ApiPropertyOptional({
    example: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'Tell only this organisation; every organisation when left out',
  })
  @Optional()
  @IsString({ message: 'must be an organisation id' })
  organization_id?: string;
}

export const CREATE_SYSTEM_NOTICE_EXAMPLES: RequestExamples = {
  maintenance: {
    summary: 'Maintenance, announced to every organisation',
    value: {
      type: 'system.maintenance_scheduled',
      title: 'Database upgrade',
      message: 'Writes pause for up to 5 minutes.',
      severity: 'warning',
      starts_at: '2099-12-01T02:00:00Z',
      ends_at: '2099-12-01T02:30:00Z',
    },
  },
};

export class SystemNoticeDto {
  @ApiProperty({ example: 'ntc_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  notice_id!: string;

  @ApiProperty({ enum: SYSTEM_NOTICE_TYPES })
  type!: string;

  @ApiProperty({ type: 'integer', description: 'Organisations told' })
  organizations!: number;

  @ApiProperty({ type: 'integer', description: 'Events written (one per organisation and mode)' })
  events!: number;
}
