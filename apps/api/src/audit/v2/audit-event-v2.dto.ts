import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDateString, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { MODES, toPublicId } from '#common';
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, type AuditEventEntity } from '#events';
import { V2List, V2ListQueryDto } from '../../http/v2-list.js';

export class AuditActorDto {
  @ApiProperty({ enum: AUDIT_ACTOR_TYPES, example: 'person' })
  type!: string;

  @ApiProperty({
    example: 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description:
      'Public id of who acted: a person (`usr_…`), an API key (`key_…`), an OAuth client (its client id), a SCIM token (`scim_…`); for `system`, what the service acted as (an SSO connection `sso_…` provisioning a person, `retention`)',
  })
  id!: string;
}

export class AuditTargetDto {
  @ApiProperty({
    example: 'api_key',
    description:
      '`api_key`, `oauth_client`, `webhook`, `sso_connection`, `scim_token`, `person`, `group`, `organization`, a kind of work (`session`, `analysis`, `dowsing_query`), `history_case`, `history_import`',
  })
  type!: string;

  @ApiProperty({ example: 'key_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;
}

export class AuditEventDto {
  @ApiProperty({ example: 'audit_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  id!: string;

  @ApiProperty({
    example: 'api_key.created',
    description: `What happened: ${AUDIT_ACTIONS.map((a) => `\`${a}\``).join(', ')}, or the deletion of a kind of work (\`<kind>.deleted\`).`,
  })
  action!: string;

  @ApiProperty({ type: AuditActorDto })
  actor!: AuditActorDto;

  @ApiProperty({ type: AuditTargetDto })
  target!: AuditTargetDto;

  @ApiProperty({ enum: MODES })
  mode!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '203.0.113.7',
    description:
      'The client address (as TRUSTED_PROXIES report it); null for what the service did on its own',
  })
  ip!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'sas-cli/1.4.0' })
  user_agent!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'req_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  request_id!: string | null;

  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: {
      type: 'object',
      properties: { before: {}, after: {} },
    },
    example: { scopes: { before: ['sessions:read'], after: ['sessions:read', 'sessions:write'] } },
    description:
      'Each changed field\'s value before and after (null for a field that did not exist before). A secret\'s values are never kept: a changed secret reads `"[redacted]"`.',
  })
  changes!: Record<string, { before: unknown; after: unknown }> | null;

  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    example: { method: 'saml' },
    description:
      "Facts of the action that are not field changes: a sign-in's method, an import's counts",
  })
  details!: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export class AuditEventListV2Dto extends V2List(AuditEventDto) {}

const ACTION_PATTERN = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;
const ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,200}$/;

export class AuditEventListQueryDto extends V2ListQueryDto {
  @ApiPropertyOptional({ example: 'api_key.revoked', description: 'Only events of this action' })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @Matches(ACTION_PATTERN, { message: 'must be an action such as api_key.created' })
  action?: string;

  @ApiPropertyOptional({
    example: 'usr_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'Only events of this actor (`actor.id`)',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  @Matches(ID_PATTERN, { message: 'must be an id' })
  actor_id?: string;

  @ApiPropertyOptional({
    example: 'key_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'Only events of this target (`target.id`)',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  @Matches(ID_PATTERN, { message: 'must be an id' })
  target_id?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events at or after this time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  created_after?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events before this time' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  created_before?: string;
}

export function toAuditEventDto(event: AuditEventEntity): AuditEventDto {
  return {
    id: toPublicId('auditEvent', event.id),
    action: event.action,
    actor: { type: event.actorType, id: event.actorId },
    target: { type: event.targetType, id: event.targetId },
    mode: event.mode,
    ip: event.ip,
    user_agent: event.userAgent,
    request_id: event.requestId,
    changes: event.changes,
    details: event.details,
    created_at: event.createdAt.toISOString(),
  };
}
