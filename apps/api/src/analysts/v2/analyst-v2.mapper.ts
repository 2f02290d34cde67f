import { toPublicId } from '#common';
import type { Analyst, Invited } from '#analysts';
import type { AnalystCreatedDto, AnalystDto } from './analyst-response-v2.dto.js';

export function toAnalystDto(analyst: Analyst): AnalystDto {
  return {
    analyst_id: toPublicId('analyst', analyst.id),
    email: analyst.email,
    name: analyst.name,
    roles: analyst.roles,
    identity_source: analyst.identitySource,
    scim_managed: analyst.scimManaged,
    status: analyst.status,
    invitation_expires_at: analyst.invitationExpiresAt?.toISOString() ?? null,
    created_at: analyst.createdAt.toISOString(),
    last_sign_in_at: analyst.lastSignInAt?.toISOString() ?? null,
  };
}

export function toAnalystCreatedDto({
  analyst,
  invitationUrl,
}: Invited<Analyst>): AnalystCreatedDto {
  return {
    ...toAnalystDto(analyst),
    ...(invitationUrl === null ? {} : { invitation_url: invitationUrl }),
  };
}
