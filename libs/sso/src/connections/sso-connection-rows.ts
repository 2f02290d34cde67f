import { rowMapping } from '#database';
import type { SsoConnection } from './sso-connection.js';

/** The columns of `sso_connections` but the sealed secret, each with the field it maps to. */
const FIELDS = {
  id: 'id',
  organization_id: 'organizationId',
  mode: 'mode',
  type: 'type',
  name: 'name',
  email_domains: 'emailDomains',
  default_scopes: 'defaultScopes',
  group_scopes: 'groupScopes',
  jit_provisioning: 'jitProvisioning',
  jit_roles: 'jitRoles',
  enabled: 'enabled',
  config: 'config',
  metadata_fetched_at: 'metadataFetchedAt',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
} as const satisfies Record<string, keyof SsoConnection>;

export const SSO_CONNECTION_ROWS = rowMapping<SsoConnection, keyof typeof FIELDS>(
  'sso_connections',
  FIELDS,
  ['group_scopes', 'config'],
);
