import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * Two organisations × two modes. Every resource that exists is created by each
 * tenant, and every other tenant's credentials must fail to read, change or
 * list it — always 404 (or absent from lists), never 403 or the data.
 */
interface Tenant {
  name: string;
  token: string;
  sessionId: string;
  apiKeyId: string;
  /** The factory's client and one registered through /v1/oauth-clients. */
  oauthClientIds: string[];
}

let stack: Stack;
let client: TestClient;
const tenants: Tenant[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  for (const org of ['A', 'B']) {
    for (const mode of ['live', 'test'] as Mode[]) {
      const owner = await createOrganization(stack, client, mode);
      const token = await owner.token();
      const session = await client.post('/v1/sessions', {
        token,
        json: { type: 'remote_viewing', target: `${org}/${mode}` },
      });
      const key = await client.post('/v1/api-keys', {
        token,
        json: { name: `${org}/${mode}`, scopes: ['remote-viewing:read'] },
      });
      const oauthClient = await client.post('/v1/oauth-clients', {
        token,
        json: {
          client_name: `${org}/${mode}`,
          grant_types: ['client_credentials'],
          scope: 'remote-viewing:read',
        },
      });
      tenants.push({
        name: `${org}/${mode}`,
        token,
        sessionId: session.body.session_id,
        apiKeyId: key.body.id,
        oauthClientIds: [oauthClient.body.client_id, owner.clientId],
      });
    }
  }
});
afterAll(() => stack?.close());

describe('tenant isolation matrix', () => {
  it('lets each tenant reach its own resources', async () => {
    for (const tenant of tenants) {
      expect(
        (await client.get(`/v1/sessions/${tenant.sessionId}`, { token: tenant.token })).status,
      ).toBe(200);
      expect(
        (await client.get(`/v2/sessions/${tenant.sessionId}`, { token: tenant.token })).status,
      ).toBe(200);
      expect(
        (await client.get(`/v1/api-keys/${tenant.apiKeyId}`, { token: tenant.token })).status,
      ).toBe(200);
      for (const id of tenant.oauthClientIds) {
        expect((await client.get(`/v1/oauth-clients/${id}`, { token: tenant.token })).status).toBe(
          200,
        );
      }
    }
  });

  it('answers 404 to every other tenant, for every operation on every resource', async () => {
    for (const caller of tenants) {
      for (const owner of tenants.filter((t) => t !== caller)) {
        const token = caller.token;
        const attempts = [
          client.get(`/v1/sessions/${owner.sessionId}`, { token }),
          client.get(`/v1/sessions/${owner.sessionId}/results`, { token }),
          client.get(`/v1/sessions/${owner.sessionId}/sketches/0.svg`, { token }),
          client.get(`/v2/sessions/${owner.sessionId}`, { token }),
          client.get(`/v2/public/sessions/${owner.sessionId}`, { token }),
          client.post(`/v1/sessions/${owner.sessionId}/cancel`, { token }),
          client.post(`/v2/sessions/${owner.sessionId}/results`, { token, json: {} }),
          client.post(`/v2/sessions/${owner.sessionId}/merge`, {
            token,
            json: { session_ids: [caller.sessionId] },
          }),
          client.post(`/v2/sessions/${caller.sessionId}/merge`, {
            token,
            json: { session_ids: [owner.sessionId] },
          }),
          client.delete(`/v1/sessions/${owner.sessionId}`, { token }),
          client.get(`/v1/api-keys/${owner.apiKeyId}`, { token }),
          client.post(`/v1/api-keys/${owner.apiKeyId}/revoke`, { token }),
          client.post(`/v1/api-keys/${owner.apiKeyId}/rotate`, { token, json: {} }),
          ...owner.oauthClientIds.flatMap((id) => [
            client.get(`/v1/oauth-clients/${id}`, { token }),
            client.request('PATCH', `/v1/oauth-clients/${id}`, {
              token,
              json: { client_name: 'taken' },
            }),
            client.post(`/v1/oauth-clients/${id}/rotate-secret`, { token }),
            client.request('DELETE', `/v1/oauth-clients/${id}`, { token }),
          ]),
        ];
        for (const response of await Promise.all(attempts)) {
          expect(response.status, `${caller.name} → ${owner.name}`).toBe(404);
          expect(response.text).not.toContain(owner.name);
        }
      }
    }
  });

  it('never lists another tenant’s keys', async () => {
    for (const caller of tenants) {
      const listed = (
        await client.get('/v1/api-keys?limit=100', { token: caller.token })
      ).body.results.map((k: { id: string }) => k.id);
      expect(listed).toEqual([caller.apiKeyId]);
    }
  });

  it('never lists another tenant’s OAuth clients', async () => {
    for (const caller of tenants) {
      const listed = (
        await client.get('/v1/oauth-clients?limit=100', { token: caller.token })
      ).body.results.map((c: { client_id: string }) => c.client_id);
      expect(listed).toEqual(caller.oauthClientIds);
    }
  });

  it('pages the same after a cursor made from another tenant’s id as after one naming nothing', async () => {
    const cursorOf = (id: string) => Buffer.from(id).toString('base64url');
    const nothing = {
      session: 'sess_01m82sfbpbenftg57hv349pfkd',
      event: 'evt_01m82sfbpbenftg57hv349pfkd',
    };
    for (const caller of tenants) {
      const unknownSessions = await client.get(`/v2/sessions?cursor=${cursorOf(nothing.session)}`, {
        token: caller.token,
      });
      const unknownEvents = await client.get(`/v2/events?cursor=${cursorOf(nothing.event)}`, {
        token: caller.token,
      });
      for (const owner of tenants.filter((t) => t !== caller)) {
        const [ownerEvent] = (await client.get('/v2/events', { token: owner.token })).body.data;
        const sessions = await client.get(`/v2/sessions?cursor=${cursorOf(owner.sessionId)}`, {
          token: caller.token,
        });
        const events = await client.get(`/v2/events?cursor=${cursorOf(ownerEvent.id)}`, {
          token: caller.token,
        });
        expect(sessions.body, `${caller.name} → ${owner.name}`).toEqual(unknownSessions.body);
        expect(events.body, `${caller.name} → ${owner.name}`).toEqual(unknownEvents.body);
      }
    }
  });

  it('left every resource untouched by the attempts', async () => {
    for (const tenant of tenants) {
      const key = await client.get(`/v1/api-keys/${tenant.apiKeyId}`, { token: tenant.token });
      expect(key.body).toMatchObject({ revoked_at: null, expires_at: null });
      const oauthClient = await client.get(`/v1/oauth-clients/${tenant.oauthClientIds[0]}`, {
        token: tenant.token,
      });
      expect(oauthClient.body).toMatchObject({
        client_name: tenant.name,
        client_secret_expires_at: 0,
      });
    }
  });
});
