import type { CreateApiKey } from '@sas/sdk';

export type Scope = CreateApiKey['scopes'][number];

/** Every scope of the API (libs/common's constant map), as the dashboard's sign-in asks for them. */
export const ALL_SCOPES: readonly Scope[] = [
  'remote-viewing:read',
  'remote-viewing:write',
  'remote-viewing:delete',
  'remote-viewing:admin',
  'dowsing:read',
  'dowsing:write',
  'dowsing:delete',
  'dowsing:admin',
  'analytics:read',
  'analytics:export',
  'analytics:admin',
  'profile',
  'email',
  'organizations:read',
  'organizations:write',
];
