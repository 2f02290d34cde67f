import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId, type Mode } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { addMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Two organisations × two modes. Every resource that exists is created by each
 * tenant, and every other tenant's credentials must fail to read, change or
 * list it — always 404 (or absent from lists), never 403 or the data.
 * The worker runs, so each tenant's analyses complete: pattern recognition
 * would take them, were they not another tenant's.
 */
interface Tenant {
  name: string;
  token: string;
  sessionId: string;
  apiKeyId: string;
  /** The factory's client and one registered through /v1/oauth-clients. */
  oauthClientIds: string[];
  /** Completed analyses: one through each submit route, one in each batch. */
  analysisIds: string[];
  /** A batch of analyses through each batch route. */
  analysisBatchIds: string[];
  /** A plain dowsing query and one variant, and a v2 batch of one. */
  dowsingIds: string[];
  dowsingBatchId: string;
  /** The history cases of the tenant's finished work (found after setup). */
  caseIds: string[];
  /** A history report (queued or built: either way only its tenant reaches it). */
  reportId: string;
  /** The tenant's organisation's SSO connections path, and its one connection there. */
  ssoPath: string;
  ssoConnectionId: string;
  /** A target of the tenant's pool, and a member of its organisation (`analyst_…`). */
  targetId: string;
  analystId: string;
}

let stack: Stack;
let client: TestClient;
const tenants: Tenant[] = [];

beforeAll(async () => {
  // The tenants' directories are on this machine (never contacted: they only need to be allowed).
  stack = await startStack({ env: { OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' } });
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
      // The tenant's name in every description: a leak of the analysis shows in the response text.
      const analysis = { target_type: 'object', analysis_type: 'quick_scan' };
      const analysisIds: string[] = [];
      for (const path of ['/v1/analysis/targets', '/v1/analysis/submit']) {
        const submitted = await client.post(path, {
          token,
          json: { ...analysis, description: `${org}/${mode} via ${path}` },
        });
        analysisIds.push(submitted.body.analysis_id);
      }
      const analysisBatchIds: string[] = [];
      for (const path of ['/v1/analysis/batch', '/v1/batch/analysis']) {
        const batch = await client.post(path, {
          token,
          json: { analyses: [{ ...analysis, description: `${org}/${mode} via ${path}` }] },
        });
        analysisBatchIds.push(batch.body.batch_id);
        analysisIds.push(batch.body.analyses[0].analysis_id);
      }
      // The tenant's name in every question, as in the analyses' descriptions.
      const plain = await client.post('/v1/dowsing/query', {
        token,
        json: { query_type: 'yes_no', question: `${org}/${mode} asks` },
      });
      const chart = await client.post('/v1/dowsing/chart-analysis', {
        token,
        json: { question: `${org}/${mode} charts`, options: ['a', 'b'] },
      });
      // Two located readings at the same two points for every tenant: heatmaps must count only their own.
      const located = await client.post('/v1/dowsing/multi-point', {
        token,
        json: {
          question: `${org}/${mode} points`,
          points: [
            { name: 'west', latitude: 10.001, longitude: 20.001 },
            { name: 'east', latitude: 10.001, longitude: 20.003 },
          ],
        },
      });
      const report = await client.post('/v2/reports/generate', {
        token,
        json: { report_type: 'history', format: 'json' },
      });
      const ssoPath = `/v2/enterprise/organizations/${toPublicId('organization', owner.organizationId)}/sso-connections`;
      // Connections belong to the organisation in both modes: made with a live credential.
      const sso = await client.post(ssoPath, {
        token: await owner.liveToken(),
        json: {
          type: 'ldap',
          name: `${org}/${mode} directory`,
          email_domains: [`${org}-${mode}.example.com`.toLowerCase()],
          url: 'ldaps://127.0.0.1:1',
          bind_dn: 'cn=service,dc=example,dc=com',
          bind_password: `${org}/${mode} secret`,
          user_base_dn: 'ou=people,dc=example,dc=com',
          user_filter: '(mail={username})',
        },
      });
      expect(sso.status, sso.text).toBe(201);
      const dowsingBatch = await client.post('/v2/dowsing/batch', {
        token,
        json: { queries: [{ variant: 'query', query_type: 'yes_no', question: `${org}/${mode}` }] },
      });
      const target = await client.post('/v2/targets', {
        token,
        json: { description: `${org}/${mode} target`, descriptors: ['water'] },
      });
      expect(target.status, target.text).toBe(201);
      const member = await addMember(stack, owner, ['analyst', 'judge'], `${org} ${mode} person`);
      tenants.push({
        name: `${org}/${mode}`,
        targetId: target.body.target_id,
        analystId: member.analystId,
        dowsingIds: [
          located.body.query_id,
          plain.body.query_id,
          chart.body.query_id,
          dowsingBatch.body.queries[0].query_id,
        ],
        dowsingBatchId: dowsingBatch.body.batch_id,
        token,
        sessionId: session.body.session_id,
        apiKeyId: key.body.id,
        oauthClientIds: [oauthClient.body.client_id, owner.clientId],
        analysisIds,
        analysisBatchIds,
        caseIds: [],
        reportId: report.body.report_id,
        ssoPath,
        ssoConnectionId: sso.body.id,
      });
    }
  }
  for (const tenant of tenants) {
    for (const id of tenant.analysisIds) {
      await waitFor(async () => {
        const status = await client.get(`/v1/analysis/${id}`, { token: tenant.token });
        return status.body.status === 'completed' ? true : null;
      });
    }
    const search = await client.get('/v1/history/search?limit=100', { token: tenant.token });
    tenant.caseIds = search.body.results.map((c: { id: string }) => c.id);
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
      for (const id of tenant.analysisIds) {
        expect((await client.get(`/v1/analysis/${id}`, { token: tenant.token })).status).toBe(200);
        expect(
          (await client.get(`/v1/analysis/${id}/results`, { token: tenant.token })).status,
        ).toBe(200);
      }
      for (const id of tenant.analysisBatchIds) {
        expect((await client.get(`/v1/batch/${id}/status`, { token: tenant.token })).status).toBe(
          200,
        );
        expect((await client.get(`/v1/batch/${id}/results`, { token: tenant.token })).status).toBe(
          200,
        );
      }
      for (const id of tenant.dowsingIds) {
        for (const version of ['v1', 'v2']) {
          expect(
            (await client.get(`/${version}/dowsing/queries/${id}`, { token: tenant.token })).status,
          ).toBe(200);
        }
      }
      expect(
        (await client.get(`/v1/batch/${tenant.dowsingBatchId}/results`, { token: tenant.token }))
          .status,
      ).toBe(200);
      // Every finished dowsing query and analysis is a case (the session may still run).
      expect(tenant.caseIds.length).toBeGreaterThanOrEqual(
        tenant.dowsingIds.length + tenant.analysisIds.length,
      );
      for (const id of tenant.caseIds) {
        expect((await client.get(`/v1/history/${id}`, { token: tenant.token })).status).toBe(200);
      }
      expect(
        (await client.get(`/v2/reports/${tenant.reportId}`, { token: tenant.token })).status,
      ).toBe(200);
      expect(
        (await client.get(`/v2/targets/${tenant.targetId}`, { token: tenant.token })).status,
      ).toBe(200);
      expect(
        (await client.get(`/v2/analysts/${tenant.analystId}`, { token: tenant.token })).status,
      ).toBe(200);
      const patterns = await client.post('/v2/analysis/pattern-recognition', {
        token: tenant.token,
        json: { items: tenant.analysisIds },
      });
      expect(patterns.status).toBe(200);
      expect(patterns.body.item_count).toBe(tenant.analysisIds.length);
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
          client.post(`/v2/sessions/${owner.sessionId}/results`, {
            token,
            json: { descriptors: ['water'] },
          }),
          client.get(`/v2/targets/${owner.targetId}`, { token }),
          client.get(`/v2/targets/${owner.targetId}/photos/photo_01jh2x7v4ke8rbk3a8y0v0d7qz`, {
            token,
          }),
          client.delete(`/v2/targets/${owner.targetId}`, { token }),
          client.get(`/v2/analysts/${owner.analystId}`, { token }),
          // People, like connections, are changed in live mode only (test mode: 403 whatever the id).
          ...(caller.name.endsWith('/live')
            ? [
                client.patch(`/v2/analysts/${owner.analystId}`, {
                  token,
                  json: { name: 'taken' },
                }),
                client.post(`/v2/analysts/${owner.analystId}/invitation`, { token }),
                client.delete(`/v2/analysts/${owner.analystId}`, { token }),
              ]
            : []),
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
          ...owner.analysisIds.flatMap((id) => [
            client.get(`/v1/analysis/${id}`, { token }),
            client.get(`/v1/analysis/${id}/results`, { token }),
            client.post(`/v1/analysis/${id}/cancel`, { token }),
            client.delete(`/v1/analysis/${id}`, { token }),
          ]),
          ...[...owner.analysisBatchIds, owner.dowsingBatchId].flatMap((id) => [
            client.get(`/v1/batch/${id}/status`, { token }),
            client.get(`/v1/batch/${id}/results`, { token }),
          ]),
          ...owner.dowsingIds.flatMap((id) => [
            client.get(`/v1/dowsing/queries/${id}`, { token }),
            client.get(`/v2/dowsing/queries/${id}`, { token }),
            client.delete(`/v1/dowsing/queries/${id}`, { token }),
          ]),
          // Another organisation's connections path, and its connection under the caller's own path.
          client.get(owner.ssoPath, { token }),
          client.get(`${owner.ssoPath}/${owner.ssoConnectionId}`, { token }),
          client.get(`${caller.ssoPath}/${owner.ssoConnectionId}`, { token }),
          ...(caller.name.endsWith('/live')
            ? [
                client.patch(`${caller.ssoPath}/${owner.ssoConnectionId}`, {
                  token,
                  json: { name: 'taken' },
                }),
                client.post(`${caller.ssoPath}/${owner.ssoConnectionId}/test`, { token }),
                client.post(`${caller.ssoPath}/${owner.ssoConnectionId}/verify-domains`, {
                  token,
                }),
                client.delete(`${caller.ssoPath}/${owner.ssoConnectionId}`, { token }),
              ]
            : []),
          client.get(`/v2/reports/${owner.reportId}`, { token }),
          client.get(`/v2/reports/${owner.reportId}/download`, { token }),
          client.delete(`/v2/reports/${owner.reportId}`, { token }),
          ...owner.caseIds.flatMap((id) => [
            client.get(`/v1/history/${id}`, { token }),
            client.get(`/v1/history/similar?case_id=${id}`, { token }),
            client.put(`/v1/history/${id}/outcome`, {
              token,
              json: { verdict: 'hit', verified_by: 'intruder' },
            }),
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

  it('never lists another tenant’s targets or people', async () => {
    for (const caller of tenants) {
      const targets = await client.get('/v2/targets?per_page=100', { token: caller.token });
      expect(targets.body.data.map((t: { target_id: string }) => t.target_id)).toEqual([
        caller.targetId,
      ]);
      const people = await client.get('/v2/analysts?per_page=100', { token: caller.token });
      expect(people.body.data.map((p: { analyst_id: string }) => p.analyst_id)).toEqual([
        caller.analystId,
      ]);
    }
  });

  it('never lists another tenant’s SSO connections', async () => {
    for (const caller of tenants) {
      const listed = await client.get(`${caller.ssoPath}?per_page=100`, { token: caller.token });
      expect(
        listed.body.data.map((c: { id: string }) => c.id),
        caller.name,
      ).toEqual([caller.ssoConnectionId]);
    }
  });

  it('never lists another organisation’s SCIM tokens, nor reaches its people with one', async () => {
    const scimTokensOf = (tenant: Tenant) =>
      `${tenant.ssoPath.replace('/sso-connections', '')}/scim-tokens`;
    const issued = new Map<Tenant, { id: string; token: string }>();
    for (const tenant of tenants.filter((t) => t.name.endsWith('/live'))) {
      const created = await client.post(scimTokensOf(tenant), {
        token: tenant.token,
        json: { name: tenant.name },
      });
      expect(created.status, created.text).toBe(201);
      issued.set(tenant, created.body);
    }
    for (const caller of tenants) {
      const listed = await client.get(scimTokensOf(caller), { token: caller.token });
      const own = [...issued].filter(([t]) => t.ssoPath === caller.ssoPath).map(([, i]) => i.id);
      expect(
        listed.body.data.map((t: { id: string }) => t.id),
        caller.name,
      ).toEqual(own);
    }
    const [[, a], [, b]] = [...issued];
    const scim = (token: string, path: string, body?: unknown) =>
      fetch(`${stack.baseUrl}/scim/v2${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/scim+json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const provisioned = await scim(a!.token, '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `isolated.${Date.now()}@example.com`,
    });
    expect(provisioned.status).toBe(201);
    const { id } = (await provisioned.json()) as { id: string };
    expect((await scim(a!.token, `/Users/${id}`)).status).toBe(200);
    expect((await scim(b!.token, `/Users/${id}`)).status).toBe(404);
    expect(JSON.stringify(await (await scim(b!.token, '/Users')).json())).not.toContain(id);
  });

  it('never lists, exports, filters to or pages after another tenant’s audit events', async () => {
    const auditOf = async (token: string, query = '', accept = 'application/json') =>
      client.get(`/v2/audit-events${query}`, { token, headers: { accept } });
    for (const caller of tenants) {
      const own = await auditOf(caller.token, '?per_page=100');
      expect(own.status, own.text).toBe(200);
      const ownIds = own.body.data.map((e: { id: string }) => e.id);
      // Its own key's creation is there (so the checks below are not of an empty list).
      expect(
        own.body.data.filter((e: { target: { id: string } }) => e.target.id === caller.apiKeyId),
        caller.name,
      ).toEqual([expect.objectContaining({ action: 'api_key.created' })]);
      const exported = await auditOf(caller.token, '', 'application/x-ndjson');
      expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      const exportedIds = exported.text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line).id);
      expect(exportedIds).toEqual(ownIds);
      for (const owner of tenants.filter((t) => t !== caller)) {
        for (const other of [owner.apiKeyId, owner.sessionId]) {
          expect(JSON.stringify(own.body)).not.toContain(other);
          expect(exported.text).not.toContain(other);
          const filtered = await auditOf(caller.token, `?target_id=${other}`);
          expect(filtered.body.data, `${caller.name} → ${owner.name}`).toEqual([]);
        }
        const [ownerEvent] = (await auditOf(owner.token)).body.data;
        const cursor = Buffer.from(ownerEvent.id).toString('base64url');
        const after = await auditOf(caller.token, `?cursor=${cursor}`);
        const unknown = Buffer.from('audit_01m82sfbpbenftg57hv349pfkd').toString('base64url');
        expect(after.body, `${caller.name} → ${owner.name}`).toEqual(
          (await auditOf(caller.token, `?cursor=${unknown}`)).body,
        );
      }
    }
  });

  it('never lists another tenant’s analyses, nor takes them into pattern recognition', async () => {
    const own = (ids: string[]) => [...ids].sort();
    for (const caller of tenants) {
      const v1 = await client.get('/v1/analysis?limit=100', { token: caller.token });
      expect(
        own(v1.body.results.map((a: { analysis_id: string }) => a.analysis_id)),
        caller.name,
      ).toEqual(own(caller.analysisIds));
      const v2 = await client.get('/v2/analysis?per_page=100', { token: caller.token });
      expect(
        own(v2.body.data.map((a: { analysis_id: string }) => a.analysis_id)),
        caller.name,
      ).toEqual(own(caller.analysisIds));
      const patterns = await client.post('/v2/analysis/pattern-recognition', {
        token: caller.token,
        json: { filter: { kinds: ['analysis'], type: 'object' } },
      });
      expect(patterns.body.item_count, caller.name).toBe(caller.analysisIds.length);
    }
  });

  it('never lists another tenant’s dowsing queries', async () => {
    const own = (ids: string[]) => [...ids].sort();
    for (const caller of tenants) {
      const v1 = await client.get('/v1/dowsing/queries?limit=100', { token: caller.token });
      expect(
        own(v1.body.results.map((q: { query_id: string }) => q.query_id)),
        caller.name,
      ).toEqual(own(caller.dowsingIds));
      const v2 = await client.get('/v2/dowsing/queries?per_page=100', { token: caller.token });
      expect(own(v2.body.data.map((q: { query_id: string }) => q.query_id)), caller.name).toEqual(
        own(caller.dowsingIds),
      );
    }
  });

  it('never searches, nor finds similar, another tenant’s cases', async () => {
    for (const caller of tenants) {
      const others = tenants.filter((t) => t !== caller);
      const v1 = await client.get('/v1/history/search?limit=100', { token: caller.token });
      const v2 = await client.get('/v2/history/search?per_page=100', { token: caller.token });
      const words = await client.get(`/v1/history/search?q=asks`, { token: caller.token });
      const similar = await client.post('/v2/history/similarity-search', {
        token: caller.token,
        json: {
          text: `${others[0]!.name} asks`,
          coordinates: { latitude: 10.001, longitude: 20.002 },
          limit: 50,
        },
      });
      for (const response of [v1, v2, words, similar]) {
        expect(response.status, caller.name).toBe(200);
        const found = response.body.results ?? response.body.data;
        expect(found.length, caller.name).toBeGreaterThan(0);
        for (const item of found) expect(item.target, caller.name).toContain(caller.name);
      }
      // Its session may have finished since setup: one case more, its own.
      expect(v1.body.total, caller.name).toBe(v1.body.results.length);
      expect(v1.body.results.map((c: { id: string }) => c.id)).toEqual(
        expect.arrayContaining(caller.caseIds),
      );
    }
  });

  it('never lists another tenant’s reports, nor counts its cases or shows its activity', async () => {
    for (const caller of tenants) {
      const others = tenants.filter((t) => t !== caller);
      const reports = await client.get('/v2/reports?per_page=100', { token: caller.token });
      expect(reports.body.data.map((r: { report_id: string }) => r.report_id)).toEqual([
        caller.reportId,
      ]);
      const analytics = await client.get('/v1/history/analytics', { token: caller.token });
      expect(analytics.status, caller.name).toBe(200);
      // Its session may have finished since setup: one case more, its own.
      expect(analytics.body.total.cases, caller.name).toBeGreaterThanOrEqual(caller.caseIds.length);
      expect(analytics.body.total.cases, caller.name).toBeLessThanOrEqual(
        caller.caseIds.length + 1,
      );
      const dashboard = await client.get('/v2/analytics/dashboard', { token: caller.token });
      expect(dashboard.status, caller.name).toBe(200);
      for (const other of others) expect(dashboard.text, caller.name).not.toContain(other.name);
    }
  });

  it('counts only the caller’s own readings in heatmaps and temporal analysis', async () => {
    const bounds = { south: 10, west: 20, north: 10.01, east: 20.01 };
    for (const caller of tenants) {
      const heatmap = await client.post('/v2/dowsing/heatmap', {
        token: caller.token,
        json: { bounds, cell_size_meters: 5000 },
      });
      expect(heatmap.status, caller.name).toBe(200);
      expect(heatmap.body.total_readings, caller.name).toBe(2);
      const temporal = await client.get(
        '/v2/dowsing/temporal-analysis?interval=day&latitude=10.001&longitude=20.002&radius_meters=1000' +
          `&date_from=${new Date(Date.now() - 86_400_000).toISOString()}&date_to=${new Date(Date.now() + 86_400_000).toISOString()}`,
        { token: caller.token },
      );
      expect(temporal.status, caller.name).toBe(200);
      expect(temporal.body.total_queries, caller.name).toBe(1);
      expect(temporal.text).not.toContain(tenants.find((t) => t !== caller)!.name);
    }
  });

  it('refuses another tenant’s analysis to pattern recognition as it does an unknown id', async () => {
    const nothing = 'anal_01m82sfbpbenftg57hv349pfkd';
    const refusal = (response: { status: number; body: any }) => ({
      status: response.status,
      field: response.body.error?.details?.field,
    });
    for (const caller of tenants) {
      const unknown = await client.post('/v2/analysis/pattern-recognition', {
        token: caller.token,
        json: { items: [nothing] },
      });
      expect(refusal(unknown)).toEqual({ status: 400, field: 'items.0' });
      for (const owner of tenants.filter((t) => t !== caller)) {
        for (const id of owner.analysisIds) {
          const foreign = await client.post('/v2/analysis/pattern-recognition', {
            token: caller.token,
            json: { items: [id] },
          });
          expect(refusal(foreign), `${caller.name} → ${owner.name}`).toEqual(refusal(unknown));
          expect(foreign.text).not.toContain(owner.name);
        }
        // Behind one of the caller's own, the foreign id is still the one named.
        const mixed = await client.post('/v2/analysis/pattern-recognition', {
          token: caller.token,
          json: { items: [caller.analysisIds[0], owner.analysisIds[0]] },
        });
        expect(refusal(mixed), `${caller.name} → ${owner.name}`).toEqual({
          status: 400,
          field: 'items.1',
        });
      }
    }
  });

  it('pages the same after a cursor made from another tenant’s id as after one naming nothing', async () => {
    const cursorOf = (id: string) => Buffer.from(id).toString('base64url');
    const nothing = {
      session: 'sess_01m82sfbpbenftg57hv349pfkd',
      event: 'evt_01m82sfbpbenftg57hv349pfkd',
      analysis: 'anal_01m82sfbpbenftg57hv349pfkd',
      dowsing: 'dowse_01m82sfbpbenftg57hv349pfkd',
    };
    for (const caller of tenants) {
      const unknownSessions = await client.get(`/v2/sessions?cursor=${cursorOf(nothing.session)}`, {
        token: caller.token,
      });
      const unknownEvents = await client.get(`/v2/events?cursor=${cursorOf(nothing.event)}`, {
        token: caller.token,
      });
      const unknownAnalyses = await client.get(
        `/v2/analysis?cursor=${cursorOf(nothing.analysis)}`,
        { token: caller.token },
      );
      const unknownQueries = await client.get(
        `/v2/dowsing/queries?cursor=${cursorOf(nothing.dowsing)}`,
        { token: caller.token },
      );
      for (const owner of tenants.filter((t) => t !== caller)) {
        for (const id of owner.dowsingIds) {
          const queries = await client.get(`/v2/dowsing/queries?cursor=${cursorOf(id)}`, {
            token: caller.token,
          });
          expect(queries.body, `${caller.name} → ${owner.name}`).toEqual(unknownQueries.body);
        }
        const [ownerEvent] = (await client.get('/v2/events', { token: owner.token })).body.data;
        const sessions = await client.get(`/v2/sessions?cursor=${cursorOf(owner.sessionId)}`, {
          token: caller.token,
        });
        const events = await client.get(`/v2/events?cursor=${cursorOf(ownerEvent.id)}`, {
          token: caller.token,
        });
        expect(sessions.body, `${caller.name} → ${owner.name}`).toEqual(unknownSessions.body);
        expect(events.body, `${caller.name} → ${owner.name}`).toEqual(unknownEvents.body);
        for (const id of owner.analysisIds) {
          const analyses = await client.get(`/v2/analysis?cursor=${cursorOf(id)}`, {
            token: caller.token,
          });
          expect(analyses.body, `${caller.name} → ${owner.name}`).toEqual(unknownAnalyses.body);
        }
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
      for (const id of tenant.analysisIds) {
        const analysis = await client.get(`/v1/analysis/${id}`, { token: tenant.token });
        expect(analysis.body.status).toBe('completed');
      }
      for (const id of tenant.dowsingIds) {
        const query = await client.get(`/v1/dowsing/queries/${id}`, { token: tenant.token });
        expect(query.body.status).toBe('completed');
      }
    }
  });
});
