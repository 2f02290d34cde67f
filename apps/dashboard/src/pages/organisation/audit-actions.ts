/**
 * Every action the audit log records: a copy of AUDIT_ACTIONS in
 * libs/events/src/audit/audit-actions.ts (the dashboard imports no server
 * code). A kind of work's deletion is `<kind>.deleted`, so the filter also
 * takes an action this list lacks, from the address.
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

/** What the actions act on, in the list's order: the select's groups. */
export function actionGroups(actions: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const action of actions) {
    const noun = action.slice(0, action.indexOf('.'));
    groups.set(noun, [...(groups.get(noun) ?? []), action]);
  }
  return [...groups];
}
