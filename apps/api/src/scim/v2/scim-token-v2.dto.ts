import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { DEFAULT_SCIM_TOKEN_NAME, MAX_SCIM_TOKEN_NAME_LENGTH } from '#scim';
import { Optional } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { SingleLineText } from '../../http/text-rules.js';
import { V2List } from '../../http/v2-list.js';

export const SCIM_TOKEN_ID_EXAMPLE = 'scim_01jx3m8q2ffr7bv6d0k4t9s1ya';

export class CreateScimTokenDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_SCIM_TOKEN_NAME_LENGTH,
    default: DEFAULT_SCIM_TOKEN_NAME,
    example: 'Okta',
    description: 'What the token is for, usually the identity provider that holds it',
  })
  @Optional()
  @IsString({ message: 'must be a string' })
  @Length(1, MAX_SCIM_TOKEN_NAME_LENGTH, {
    message: `must be 1 to ${MAX_SCIM_TOKEN_NAME_LENGTH} characters`,
  })
  @SingleLineText()
  name?: string;
}

export const CREATE_SCIM_TOKEN_EXAMPLES: RequestExamples = {
  okta: { summary: 'A token for Okta', value: { name: 'Okta' } },
  entra: { summary: 'A token for Microsoft Entra ID', value: { name: 'Microsoft Entra ID' } },
};

/** A token as the API lists it: never the token itself. */
export class ScimTokenDto {
  @ApiProperty({ example: SCIM_TOKEN_ID_EXAMPLE })
  id!: string;

  @ApiProperty({ example: 'Okta' })
  name!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a SCIM call last presented it (noted at most once a minute); null if never',
  })
  last_used_at!: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it was revoked (it no longer works); null while it works',
  })
  revoked_at!: string | null;
}

export class ScimTokenListDto extends V2List(ScimTokenDto) {}

/** The answer to creating a token: the only time the token itself is shown. */
export class CreatedScimTokenDto {
  @ApiProperty({ example: SCIM_TOKEN_ID_EXAMPLE })
  id!: string;

  @ApiProperty({ example: 'Okta' })
  name!: string;

  @ApiProperty({
    example: `sas_scim_${'EXAMPLE'.padEnd(43, '0')}`,
    pattern: '^sas_scim_[A-Za-z0-9_-]{43}$',
    description:
      'The bearer token to give the identity provider. Shown only in this response (only its SHA-256 is kept); store it now.',
  })
  token!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}
