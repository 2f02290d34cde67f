import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class TokenRequestDto {
  @ApiProperty({
    enum: ['client_credentials'],
    description: 'Other grants (authorization_code, refresh_token) arrive with the OAuth server',
  })
  grant_type!: string;

  @ApiPropertyOptional({ description: 'Client id (or send HTTP Basic credentials)' })
  client_id?: string;

  @ApiPropertyOptional({ description: 'Client secret (or send HTTP Basic credentials)' })
  client_secret?: string;

  @ApiPropertyOptional({
    description: "Space-separated scopes; defaults to all of the client's scopes",
    example: 'remote-viewing:read remote-viewing:write',
  })
  scope?: string;
}

export class TokenResponseDto {
  @ApiProperty({ description: 'A signed JWT (ES256, typ at+jwt)' })
  access_token!: string;

  @ApiProperty({ enum: ['Bearer'] })
  token_type!: string;

  @ApiProperty({ type: 'integer', example: 3600 })
  expires_in!: number;

  @ApiProperty({ example: 'remote-viewing:read remote-viewing:write' })
  scope!: string;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  issued_at!: number;
}

export class OAuthErrorDto {
  @ApiProperty({
    enum: [
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
    ],
  })
  error!: string;

  @ApiProperty()
  error_description!: string;
}
