import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  MaxLength,
} from 'class-validator';
import { MEMBER_ROLES, type MemberRole } from '#auth';
import { ALL_SCOPES } from '#common';
import {
  DEFAULT_CLOCK_SKEW_SECONDS,
  MAX_CLOCK_SKEW_SECONDS,
  MAX_EMAIL_DOMAINS,
  SSO_CONNECTION_TYPES,
  type SsoConnectionType,
} from '#sso';
import { Optional, OptionalOrNull } from '../../http/dto-decorators.js';
import type { RequestExamples } from '../../http/request-examples.js';
import { oneOf } from '../../http/validation-messages.js';

const PEM_TEXT = 64 * 1024;
const TEXT = { message: 'must be text' };
const FLAG = { message: 'must be true or false' };

/** The fields both types share, then SAML's, then LDAP's; a request sets only its type's. */
export class CreateSsoConnectionDto {
  @ApiProperty({ enum: SSO_CONNECTION_TYPES, description: 'A SAML 2.0 IdP or an LDAP directory' })
  @IsIn(SSO_CONNECTION_TYPES, oneOf(SSO_CONNECTION_TYPES))
  type!: SsoConnectionType;

  @ApiProperty({ example: 'Okta (staff)', maxLength: 200 })
  @IsString(TEXT)
  @MaxLength(200)
  name!: string;

  @ApiProperty({
    type: [String],
    example: ['example.com'],
    maxItems: MAX_EMAIL_DOMAINS,
    description:
      'The email domains this connection signs in: the sign-in page sends an email of one of them here. A domain belongs to one connection at most, across every organisation (409 naming `email_domains`).',
  })
  @IsArray({ message: 'must be a list of domains' })
  @ArrayMaxSize(MAX_EMAIL_DOMAINS)
  @IsString({ each: true, message: 'must be a list of domains' })
  email_domains!: string[];

  @ApiPropertyOptional({
    type: [String],
    enum: ALL_SCOPES,
    example: ['remote-viewing:read'],
    description:
      'Scopes every person signed in through this connection gets (default none). Never more than the credential creating the connection has.',
  })
  @Optional()
  @IsArray({ message: 'must be a list of scopes' })
  @IsIn(ALL_SCOPES, { each: true, ...oneOf(ALL_SCOPES) })
  default_scopes?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string', enum: [...ALL_SCOPES] } },
    example: { 'sas-analysts': ['remote-viewing:write', 'dowsing:write'] },
    description:
      'Group name → scopes granted to members (on top of `default_scopes`); groups are read again at every sign-in. Never more than the creating credential has.',
  })
  @Optional()
  @IsObject({ message: 'must be an object of group name → scopes' })
  group_scopes?: Record<string, string[]>;

  @ApiPropertyOptional({
    default: true,
    description:
      'Create a user at their first sign-in (email, name, groups); off: only existing users of the organisation sign in',
  })
  @Optional()
  @IsBoolean(FLAG)
  jit_provisioning?: boolean;

  @ApiPropertyOptional({
    enum: MEMBER_ROLES,
    isArray: true,
    default: ['admin'],
    example: ['analyst'],
    description:
      'Roles of the people it creates at their first sign-in (docs/analysts.md): `["analyst"]` lets a team of viewers sign in blind from the start. People who already have an account keep their roles.',
  })
  @Optional()
  @IsArray({ message: 'must be a list of roles' })
  @ArrayNotEmpty({ message: 'must name at least one role' })
  @IsIn(MEMBER_ROLES, { each: true, message: `must be roles: ${MEMBER_ROLES.join(', ')}` })
  jit_roles?: MemberRole[];

  @ApiPropertyOptional({ default: true, description: 'A disabled connection signs nobody in' })
  @Optional()
  @IsBoolean(FLAG)
  enabled?: boolean;

  // --- SAML ---
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "SAML: the IdP's metadata XML (entity id, SSO URL, signing certificates). One IdP source: this, `idp_metadata_url`, or `idp_entity_id` + `idp_sso_url` + `idp_certificates`.",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(1024 * 1024)
  idp_metadata_xml?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://example.okta.com/app/exk123/sso/saml/metadata',
    description:
      'SAML: an https URL of the IdP metadata, fetched under the webhook destination policy (public addresses, verified TLS) and read again daily',
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(2048)
  idp_metadata_url?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "SAML: the IdP's entity id (with idp_sso_url and idp_certificates)",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(1024)
  idp_entity_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "SAML: the IdP's single sign-on URL (https, HTTP-Redirect binding)",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(2048)
  idp_sso_url?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description:
      'SAML: PEM certificates the IdP signs with; list the old and the new one while it rotates its key',
  })
  @OptionalOrNull()
  @IsArray({ message: 'must be a list of PEM certificates' })
  @ArrayMaxSize(10)
  @IsString({ each: true, message: 'must be a list of PEM certificates' })
  @MaxLength(PEM_TEXT, { each: true })
  idp_certificates?: string[] | null;

  @ApiPropertyOptional({
    default: false,
    description: 'SAML: accept responses the IdP sends unasked (IdP-initiated sign-in)',
  })
  @Optional()
  @IsBoolean(FLAG)
  allow_idp_initiated?: boolean;

  @ApiPropertyOptional({
    default: DEFAULT_CLOCK_SKEW_SECONDS,
    minimum: 0,
    maximum: MAX_CLOCK_SKEW_SECONDS,
    description: 'SAML: seconds of clock difference tolerated on NotBefore / NotOnOrAfter',
  })
  @Optional()
  @IsInt({ message: 'must be a whole number of seconds' })
  clock_skew_seconds?: number;

  // --- LDAP ---
  @ApiPropertyOptional({
    example: 'ldaps://ldap.example.com',
    description:
      'LDAP: `ldaps://`, or `ldap://` with `start_tls: true`; plain `ldap://` only with `allow_insecure`. Under the outbound destination policy, as webhooks: the host must resolve to public addresses unless the operator put it on OUTBOUND_PRIVATE_ALLOWLIST (400 naming `url`), and every connection is checked again. No control characters in any LDAP field (400 naming it).',
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({
    default: false,
    description: 'LDAP: StartTLS on an ldap:// URL; never falls back to plain',
  })
  @Optional()
  @IsBoolean(FLAG)
  start_tls?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'LDAP: allow plain ldap:// without TLS, which sends passwords in clear: only to a host on OUTBOUND_PRIVATE_ALLOWLIST (a directory the operator vouches for), else 400 naming `allow_insecure`',
  })
  @Optional()
  @IsBoolean(FLAG)
  allow_insecure?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      "LDAP: PEM of the CA(s) the directory's certificate must chain to (else the public roots)",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(PEM_TEXT)
  ca_certificate?: string | null;

  @ApiPropertyOptional({
    example: 'cn=sas,ou=services,dc=example,dc=com',
    description: 'LDAP: the service account that searches',
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(1024)
  bind_dn?: string;

  @ApiPropertyOptional({
    writeOnly: true,
    description: "LDAP: the service account's password; sealed at rest, never returned",
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(1024)
  bind_password?: string;

  @ApiPropertyOptional({
    example: 'ou=people,dc=example,dc=com',
    description: 'LDAP: where people are searched',
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(1024)
  user_base_dn?: string;

  @ApiPropertyOptional({
    example: '(mail={username})',
    description: 'LDAP: the search filter; `{username}` is what the person typed, RFC 4515 escaped',
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(1024)
  user_filter?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: "LDAP: where groups are searched (with group_filter); else the users' memberOf",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(1024)
  group_base_dn?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '(member={dn})',
    description: "LDAP: the group filter; `{dn}` is the user's DN, escaped",
  })
  @OptionalOrNull()
  @IsString(TEXT)
  @MaxLength(1024)
  group_filter?: string | null;

  @ApiPropertyOptional({ default: 'cn', description: "LDAP: the attribute holding a group's name" })
  @Optional()
  @IsString(TEXT)
  @MaxLength(128)
  group_name_attribute?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      "LDAP: follow groups of groups (Active Directory's in-chain rule; elsewhere a bounded walk that survives cycles)",
  })
  @Optional()
  @IsBoolean(FLAG)
  nested_groups?: boolean;

  @ApiPropertyOptional({
    default: 'mail',
    description: "LDAP: the attribute holding a person's email",
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(128)
  email_attribute?: string;

  @ApiPropertyOptional({
    default: 'cn',
    description: "LDAP: the attribute holding a person's name",
  })
  @Optional()
  @IsString(TEXT)
  @MaxLength(128)
  name_attribute?: string;
}

export class UpdateSsoConnectionDto extends PartialType(
  OmitType(CreateSsoConnectionDto, ['type'] as const),
) {}

export const CREATE_SSO_CONNECTION_EXAMPLES: RequestExamples = {
  ldap: {
    summary: 'An LDAP directory over StartTLS',
    value: {
      type: 'ldap',
      name: 'Staff directory',
      email_domains: ['ldap-example.com'],
      default_scopes: ['remote-viewing:read'],
      group_scopes: { analysts: ['remote-viewing:write'] },
      url: 'ldap://ldap.ldap-example.com',
      start_tls: true,
      bind_dn: 'cn=sas,ou=services,dc=ldap-example,dc=com',
      bind_password: 'service-account-password',
      user_base_dn: 'ou=people,dc=ldap-example,dc=com',
      user_filter: '(mail={username})',
    },
  },
};
