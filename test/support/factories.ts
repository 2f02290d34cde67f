import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ALL_SCOPES, newKey, parsePublicId, type Mode } from '#common';
import { Sql } from '#database';
import type { Plan } from '#organizations';
import { ApiKeyService } from '#api-keys';
import { OAuthClientsService } from '#auth';
import { OrganizationsService, type NewOrganization } from '#organizations';
import type { Stack } from './stack.js';
import type { TestClient } from './client.js';

export interface TestOrganization {
  organizationId: string;
  clientId: string;
  clientSecret: string;
  /** A token with the given scopes (all by default). */
  token(scopes?: readonly string[]): Promise<string>;
  /** An API key with the given scopes (all by default) in the given mode (live by default). */
  apiKey(scopes?: readonly string[], mode?: Mode): Promise<string>;
  /**
   * A live-mode token with every scope, whatever the organisation's mode: what
   * changes people and sign-in connections, which belong to both modes.
   */
  liveToken(): Promise<string>;
}

/**
 * A fresh organisation of its own for each test: no shared state to clean up.
 * Enterprise plan and custom tier unless told otherwise, so tests that make
 * many requests or start many sessions stay within its limits.
 */
export async function createOrganization(
  stack: Stack,
  client: TestClient,
  mode: Mode = 'live',
  plan: Plan = 'enterprise',
  limits: Omit<NewOrganization, 'name' | 'plan'> = { tier: 'custom' },
): Promise<TestOrganization> {
  const organization = await stack.api
    .get(OrganizationsService)
    .create({ name: `Test org ${randomBytes(3).toString('hex')}`, plan, ...limits });
  const { client: oauthClient, clientSecret } = await stack.api
    .get(OAuthClientsService)
    .createConfidential({
      organizationId: organization.id,
      mode,
      clientName: 'test client',
      scopes: [...ALL_SCOPES],
    });
  const apiKeys = stack.api.get(ApiKeyService);
  const clientCredentials = async (clientId: string, secret: string, scopes: readonly string[]) => {
    const response = await client.post('/oauth2/token', {
      form: {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        scope: scopes.join(' '),
      },
    });
    if (response.status !== 200) throw new Error(`token request failed: ${response.text}`);
    return response.body.access_token as string;
  };
  return {
    organizationId: organization.id,
    clientId: oauthClient.clientId,
    clientSecret,
    token(scopes = ALL_SCOPES) {
      return clientCredentials(oauthClient.clientId, clientSecret, scopes);
    },
    async liveToken() {
      if (mode === 'live') return clientCredentials(oauthClient.clientId, clientSecret, ALL_SCOPES);
      const live = await stack.api.get(OAuthClientsService).createConfidential({
        organizationId: organization.id,
        mode: 'live',
        clientName: 'test live client',
        scopes: [...ALL_SCOPES],
      });
      return clientCredentials(live.client.clientId, live.clientSecret, ALL_SCOPES);
    },
    async apiKey(scopes = ALL_SCOPES, keyMode = mode) {
      const { key } = await apiKeys.create(
        {
          credential: 'access_token',
          subject: oauthClient.clientId,
          organizationId: organization.id,
          mode,
          scopes: ALL_SCOPES,
        },
        { name: 'test key', scopes: [...scopes], expiresAt: null, mode: keyMode },
      );
      return key;
    },
  };
}

/** A 1×1 PNG: the photo of the pool targets made here. */
export const TEST_PNG_PATH = 'test/fixtures/reference-material/plain.png';

/**
 * A pool target made through the API, with one photo stored as if fetched
 * (the tests have no https photo host). Returns its `tgt_…` id.
 */
export async function poolTarget(
  stack: Stack,
  client: TestClient,
  token: string,
  target: { description: string; descriptors: string[]; latitude: number; longitude: number },
): Promise<string> {
  const { description, descriptors, latitude, longitude } = target;
  const response = await client.post('/v2/targets', {
    token,
    json: { description, descriptors, coordinates: { latitude, longitude } },
  });
  if (response.status !== 201) throw new Error(`pool target: ${response.status} ${response.text}`);
  const targetId = response.body.target_id as string;
  await stack.api.get(Sql).rows(
    `INSERT INTO target_photos (id, target_id, position, source_url, status, content_type, bytes, width, height)
     VALUES ($1, $2, 0, $3, 'fetched', 'image/png', $4, 1, 1)`,
    [
      newKey('targetPhoto').uuid,
      parsePublicId('target', targetId),
      `https://photos.example/${targetId}.png`,
      readFileSync(TEST_PNG_PATH),
    ],
  );
  return targetId;
}
