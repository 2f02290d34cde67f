import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { ALL_SCOPES, MODES } from '#common';
import type { RequestExamples } from '../../http/request-examples.js';
import { V1List } from '../../http/v1-list.dto.js';
import { SingleLineText } from '../../http/text-rules.js';

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Nightly batch job' })
  @IsString({ message: 'must be a string' })
  @Length(1, 100, { message: 'must be 1 to 100 characters' })
  @SingleLineText()
  name!: string;

  @ApiProperty({
    type: [String],
    enum: ALL_SCOPES,
    description: 'Scopes of the key: never more than your own',
  })
  @IsArray({ message: 'must be an array of scopes' })
  @ArrayMinSize(1, { message: 'must name at least one scope' })
  @ArrayMaxSize(ALL_SCOPES.length, { message: `can name at most ${ALL_SCOPES.length} scopes` })
  @IsIn(ALL_SCOPES, { each: true, message: `each scope must be one of ${ALL_SCOPES.join(', ')}` })
  scopes!: string[];

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the key stops working; omit or null for never',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'must be an ISO 8601 timestamp' })
  expires_at?: string | null;

  @ApiPropertyOptional({
    enum: MODES,
    description: "Mode of the key's data; defaults to the caller's mode",
  })
  @IsOptional()
  @IsIn(MODES, { message: 'must be live or test' })
  mode?: 'live' | 'test';
}

export const CREATE_API_KEY_EXAMPLES: RequestExamples = {
  read_only: {
    summary: 'A key that reads sessions, never expiring',
    value: { name: 'Nightly report job', scopes: ['remote-viewing:read'] },
  },
  expiring: {
    summary: 'A key that creates sessions, until a date',
    value: {
      name: 'Field campaign',
      scopes: ['remote-viewing:read', 'remote-viewing:write'],
      expires_at: '2099-12-31T23:59:59Z',
    },
  },
};

export class ApiKeyDto {
  @ApiProperty({ example: 'key_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({
    example: 'sk_live_AbCd',
    description: 'First characters of the key, to tell keys apart',
  })
  prefix!: string;

  @ApiProperty({ enum: MODES })
  mode!: string;

  @ApiProperty({ type: [String] })
  scopes!: string[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expires_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at!: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({
    description: 'The key itself. Shown only in this response; store it now.',
    example: 'sk_live_…',
  })
  key!: string;
}

export class RotatedApiKeyDto extends CreatedApiKeyDto {
  @ApiProperty({
    type: ApiKeyDto,
    description: 'The key it replaces, with the time it stops working',
  })
  previous!: ApiKeyDto;
}

export const ROTATE_API_KEY_EXAMPLES: RequestExamples = {
  overlap: {
    summary: 'The old key keeps working for an hour',
    value: { overlap_seconds: 3600 },
  },
};

const OVERLAP = { message: 'must be an integer number of seconds between 0 and 604800 (7 days)' };

export class RotateApiKeyDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 604800,
    default: 86400,
    description: 'How long the old key keeps working; 0 stops it at once',
  })
  @IsOptional()
  @IsInt(OVERLAP)
  @Min(0, OVERLAP)
  @Max(604800, OVERLAP)
  overlap_seconds?: number;
}

export class ApiKeyListDto extends V1List(ApiKeyDto) {}
