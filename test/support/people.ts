import { randomBytes } from 'node:crypto';
import { hashPassword, type MemberRole } from '#auth';
import { newKey, Scope, toPublicId } from '#common';
import { Sql } from '#database';
import {
  authorizationRequest,
  authorizeAs,
  discover,
  exchangeCallback,
  registerCodeClient,
  type RegisteredClient,
} from './authorization.js';
import type { TestClient } from './client.js';
import type { TestOrganization } from './factories.js';
import type { Stack } from './stack.js';

/** A member of a test organisation with a local password. */
export interface TestMember {
  userId: string;
  /** `analyst_…`: the member's public id. */
  analystId: string;
  email: string;
  password: string;
  roles: MemberRole[];
}

/** The scopes a person's token asks for in these tests: what analysts and judges use. */
export const MEMBER_SCOPES = [
  Scope.SessionsRead,
  Scope.SessionsWrite,
  Scope.DowsingRead,
  Scope.DowsingWrite,
  Scope.Profile,
  Scope.Email,
];

/**
 * Adds a member straight into the database (the people API has tests of its
 * own), so tests of the work itself start from a known team.
 */
export async function addMember(
  stack: Stack,
  organization: TestOrganization,
  roles: MemberRole[],
  name = `Member ${randomBytes(2).toString('hex')}`,
): Promise<TestMember> {
  const { uuid } = newKey('user');
  const email = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}.${randomBytes(3).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(9).toString('hex')}`;
  await stack.api
    .get(Sql)
    .rows(
      `INSERT INTO users (id, organization_id, email, name, password_hash, roles) VALUES ($1, $2, $3, $4, $5, $6)`,
      [uuid, organization.organizationId, email, name, await hashPassword(password), roles],
    );
  return { userId: uuid, analystId: toPublicId('analyst', uuid), email, password, roles };
}

/** An authorization-code client of the organisation, registered once per test file. */
export async function memberClient(
  client: TestClient,
  organization: TestOrganization,
  scopes: readonly string[] = MEMBER_SCOPES,
): Promise<RegisteredClient> {
  return registerCodeClient(client, await organization.token(), {
    public: true,
    scope: scopes.join(' '),
  });
}

/** Signs the member in through the authorization code flow with PKCE, as a browser would: their access token. */
export async function memberToken(
  stack: Stack,
  codeClient: RegisteredClient,
  member: Pick<TestMember, 'email' | 'password'>,
): Promise<string> {
  const as = await discover(stack.baseUrl);
  const request = await authorizationRequest(as, codeClient);
  const callback = await authorizeAs(stack.baseUrl, request.url, {
    email: member.email,
    password: member.password,
  });
  const tokens = await exchangeCallback(as, codeClient, callback, request);
  return tokens.access_token!;
}
