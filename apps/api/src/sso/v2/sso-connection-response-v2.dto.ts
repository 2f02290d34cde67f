import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MEMBER_ROLES } from '#auth';
import { SSO_CONNECTION_TYPES, type SsoConnectionType } from '#sso';
import { V2List } from '../../http/v2-list.js';
import { SSO_CONNECTION_ID } from '../sso-connection-id.js';

export class DomainVerificationDto {
  @ApiProperty({ enum: ['dns_txt'] })
  type!: 'dns_txt';

  @ApiProperty({
    example: '_sas-verification.example.com',
    description: 'The DNS name to publish the TXT record at',
  })
  name!: string;

  @ApiProperty({
    example: 'sas-verification=6f1c0e2b9a8d4c7e5f3a1b2c3d4e5f60',
    description: 'The TXT record’s value',
  })
  value!: string;
}

export class SsoDomainDto {
  @ApiProperty({ example: 'example.com' })
  domain!: string;

  @ApiProperty({
    enum: ['pending', 'verified'],
    description:
      '`verified` once the domain published its record: only then does it route sign-ins, and no other organisation may claim it. A `pending` claim routes nothing and blocks nobody.',
  })
  status!: 'pending' | 'verified';

  @ApiProperty({ type: DomainVerificationDto })
  verification!: DomainVerificationDto;
}

/** A connection as the API shows it: the shared fields, then its type's (never a secret). */
export class SsoConnectionDto {
  @ApiProperty({ example: SSO_CONNECTION_ID.example })
  id!: string;

  @ApiProperty({ enum: SSO_CONNECTION_TYPES })
  type!: SsoConnectionType;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: [String] })
  email_domains!: string[];

  @ApiProperty({
    type: [SsoDomainDto],
    description:
      'Each of `email_domains` with its proof: publish `verification` as a TXT record, then `POST …/verify-domains` (the worker also looks pending ones up every hour)',
  })
  domains!: SsoDomainDto[];

  @ApiProperty({ type: [String] })
  default_scopes!: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
  })
  group_scopes!: Record<string, string[]>;

  @ApiProperty()
  jit_provisioning!: boolean;

  @ApiProperty({
    enum: MEMBER_ROLES,
    isArray: true,
    description: 'Roles of the people it provisions',
  })
  jit_roles!: string[];

  @ApiProperty()
  enabled!: boolean;

  @ApiPropertyOptional({ description: 'SAML: our entity id for this connection' })
  sp_entity_id?: string;

  @ApiPropertyOptional({ description: 'SAML: where the IdP posts its responses (HTTP-POST)' })
  acs_url?: string;

  @ApiPropertyOptional({
    description: 'SAML: our SP metadata for the IdP (public, with our signing certificate)',
  })
  sp_metadata_url?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  idp_metadata_url?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'SAML: when the metadata was last read from idp_metadata_url',
  })
  metadata_fetched_at?: string | null;

  @ApiPropertyOptional()
  idp_entity_id?: string;

  @ApiPropertyOptional()
  idp_sso_url?: string;

  @ApiPropertyOptional({ type: [String] })
  idp_certificates?: string[];

  @ApiPropertyOptional()
  allow_idp_initiated?: boolean;

  @ApiPropertyOptional()
  clock_skew_seconds?: number;

  @ApiPropertyOptional()
  url?: string;

  @ApiPropertyOptional()
  start_tls?: boolean;

  @ApiPropertyOptional()
  allow_insecure?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true })
  ca_certificate?: string | null;

  @ApiPropertyOptional()
  bind_dn?: string;

  @ApiPropertyOptional()
  user_base_dn?: string;

  @ApiPropertyOptional()
  user_filter?: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  group_base_dn?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  group_filter?: string | null;

  @ApiPropertyOptional()
  group_name_attribute?: string;

  @ApiPropertyOptional()
  nested_groups?: boolean;

  @ApiPropertyOptional()
  email_attribute?: string;

  @ApiPropertyOptional()
  name_attribute?: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export class SsoConnectionListDto extends V2List(SsoConnectionDto) {}

export class SsoTestCheckDto {
  @ApiProperty({
    example: 'bind',
    description: 'connect, tls, bind, search (LDAP); metadata, idp_certificates.N (SAML)',
  })
  check!: string;

  @ApiProperty()
  ok!: boolean;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;
}

export class SsoTestReportDto {
  @ApiProperty()
  ok!: boolean;

  @ApiProperty({ type: [SsoTestCheckDto] })
  checks!: SsoTestCheckDto[];
}
