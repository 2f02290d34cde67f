/** The scopes of the spec, one constant map; every route names its scopes from here. */
export const Scope = {
  SessionsRead: 'remote-viewing:read',
  SessionsWrite: 'remote-viewing:write',
  SessionsDelete: 'remote-viewing:delete',
  SessionsAdmin: 'remote-viewing:admin',
  DowsingRead: 'dowsing:read',
  DowsingWrite: 'dowsing:write',
  DowsingDelete: 'dowsing:delete',
  DowsingAdmin: 'dowsing:admin',
  AnalyticsRead: 'analytics:read',
  AnalyticsExport: 'analytics:export',
  AnalyticsAdmin: 'analytics:admin',
  Profile: 'profile',
  Email: 'email',
  OrganizationsRead: 'organizations:read',
  OrganizationsWrite: 'organizations:write',
} as const;

export type ScopeName = (typeof Scope)[keyof typeof Scope];
export const ALL_SCOPES: readonly ScopeName[] = Object.values(Scope);

/** What each scope lets a credential do, in a line (the OAuth 2.0 scheme of the API document). */
export const SCOPE_DESCRIPTIONS: Readonly<Record<ScopeName, string>> = {
  'remote-viewing:read': 'Read sessions and analyses, their results, templates and batches',
  'remote-viewing:write': 'Start, cancel and submit sessions and analyses; create templates',
  'remote-viewing:delete': 'Delete sessions and analyses',
  'remote-viewing:admin': 'Defined by the spec; no route needs it yet',
  'dowsing:read': 'Read dowsing queries, heatmaps and temporal analyses',
  'dowsing:write': 'Ask dowsing queries and scan heatmaps',
  'dowsing:delete': 'Delete dowsing queries',
  'dowsing:admin': 'Defined by the spec; no route needs it yet',
  'analytics:read': 'Read history, analytics and statistics',
  'analytics:export': 'Generate, list and download reports',
  'analytics:admin': 'Import history and record or correct verified outcomes',
  profile: 'Read the signed-in person’s profile',
  email: 'Read the signed-in person’s email address',
  'organizations:read':
    'Read the organisation, its people, keys, clients, webhooks, connections and audit log',
  'organizations:write':
    'Change the organisation, its people, keys, clients, webhooks and connections',
};

export function isScope(value: string): value is ScopeName {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Scopes in `wanted` that `held` does not grant. An `*:admin` scope does not imply the others. */
export function missingScopes(held: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((scope) => !held.includes(scope));
}

/**
 * What a person added or raised by a credential holding `held` may hold at
 * most: null (no bound but the client's) when it holds every scope, else its
 * scopes. A credential never makes someone who can do more than it can.
 */
export function scopeCeiling(held: readonly string[]): string[] | null {
  const granted = ALL_SCOPES.filter((scope) => held.includes(scope));
  return granted.length === ALL_SCOPES.length ? null : granted;
}
