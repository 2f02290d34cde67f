import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES } from '#common';

export class ErrorDetailsDto {
  @ApiPropertyOptional({ description: 'Name of the offending field', example: 'target' })
  field?: string;

  @ApiPropertyOptional({
    description: 'What is wrong with it',
    example: 'must be 1 to 1000 characters',
  })
  issue?: string;

  @ApiPropertyOptional({
    description: 'Version 2: a value that would be accepted, or null',
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: {} },
      { type: 'object', nullable: true },
    ],
  })
  suggested_value?: unknown;

  @ApiPropertyOptional({
    description: 'FORBIDDEN for want of scopes: the scopes the credential lacks',
    type: [String],
    example: ['remote-viewing:write'],
  })
  required_scopes?: string[];

  @ApiPropertyOptional({
    description:
      'RATE_LIMITED: the requests the exhausted window allows, or the work the plan lets run at once',
    type: 'integer',
    example: 60,
  })
  limit?: number;

  @ApiPropertyOptional({
    description: 'RATE_LIMITED: the exhausted window',
    enum: ['minute', 'hour', 'day'],
    example: 'minute',
  })
  window?: string;
}

export class ErrorBodyDto {
  @ApiProperty({ enum: ERROR_CODES, example: 'INVALID_REQUEST' })
  code!: string;

  @ApiProperty({ example: 'Invalid value for target: must be 1 to 1000 characters' })
  message!: string;

  @ApiProperty({ type: ErrorDetailsDto })
  details!: ErrorDetailsDto;

  @ApiProperty({ example: 'req_01jh2x7v4ke8rbk3a8y0v0d7qz', pattern: '^req_[0-9a-z]{26}$' })
  request_id!: string;

  @ApiPropertyOptional({
    description: 'Version 2: address of a page explaining the code',
    format: 'uri',
  })
  help_url?: string;
}

/** The error envelope of the spec (Errors part). */
export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto })
  error!: ErrorBodyDto;
}
