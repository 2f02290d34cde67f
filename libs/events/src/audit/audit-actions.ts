/**
 * Every action the audit log records, by what it acts on. A work kind's
 * deletion (`session.deleted`, a plugged kind's `probe.deleted`) is named by
 * its WorkIdentity, so any `<noun>.deleted` is an action too.
 */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'oauth_client.created',
  'oauth_client.updated',
  'oauth_client.secret_rotated',
  'oauth_client.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.secret_rotated',
  'webhook.deleted',
  'sso_connection.created',
  'sso_connection.updated',
  'sso_connection.domains_verified',
  'sso_connection.deleted',
  'scim_token.created',
  'scim_token.revoked',
  'person.created',
  'person.invited',
  'person.updated',
  'person.disabled',
  'person.enabled',
  'person.removed',
  'group.created',
  'group.updated',
  'group.deleted',
  'organization.created',
  'organization.updated',
  'sign_in.succeeded',
  'sign_in.failed',
  'sign_in.locked',
  'history_case.outcome_recorded',
  'history_case.outcome_corrected',
  'history.imported',
  'session.deleted',
  'analysis.deleted',
  'dowsing_query.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number] | `${string}.deleted`;

/** What can act: a person (their own token), a credential, a SCIM client, or the service itself. */
export const AUDIT_ACTOR_TYPES = ['person', 'api_key', 'client', 'scim_token', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export interface AuditActor {
  type: AuditActorType;
  /** Public id (`usr_…`, `key_…`, a client id, `scim_…`), or what the service acted as (`sso_…`, `retention`). */
  id: string;
}

/** What was acted on: its kind (`api_key`, `person`, `session`…) and public id. */
export interface AuditTarget {
  type: string;
  id: string;
}

/** Before and after of each changed field; a secret's values are never kept. */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;
