import { readFileSync } from 'node:fs';
import { Client, NotFoundError } from '@sas/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { DEADLINE_MS } from './support/wait.js';

/**
 * The SDK's resources for an organisation's people and their blind work, in
 * Node against the real service: people, the target pool, an analyst's
 * assignment and a multipart submission with a sketch read back as a Blob,
 * one page of a cursor list, history import, a report downloaded as a file.
 * (The dashboard's browser tests use the same calls from Chromium.)
 */

const PNG = readFileSync(new URL('./fixtures/reference-material/plain.png', import.meta.url));

let stack: Stack;
let org: TestOrganization;
let admin: Client;
let analyst: TestMember;
let analystClient: Client;

beforeAll(async () => {
  stack = await startStack();
  const http = await TestClient.for(stack);
  org = await createOrganization(stack, http);
  admin = new Client({ baseUrl: stack.baseUrl, accessToken: await org.token() });
  analyst = await addMember(stack, org, ['analyst'], 'Sdk Analyst');
  const token = await memberToken(stack, await memberClient(http, org), analyst);
  analystClient = new Client({ baseUrl: stack.baseUrl, accessToken: token });
});

afterAll(async () => {
  await stack?.close();
});

describe('the SDK for people and their work', () => {
  it('reads the signed-in person, lists people one page at a time, and keeps the target pool', async () => {
    const me = await analystClient.profile.get();
    expect(me).toMatchObject({ analyst_id: analyst.analystId, roles: ['analyst'] });

    for (const name of ['Sdk Judge One', 'Sdk Judge Two'])
      await addMember(stack, org, ['judge'], name);
    const list = admin.analysts.list({ role: 'judge', per_page: 1 });
    const first = await list.page();
    expect(first.data).toHaveLength(1);
    expect(first.pagination.next_cursor).not.toBeNull();
    const second = await list.page(first.pagination.next_cursor!);
    expect(second.data).toHaveLength(1);
    expect(second.data[0]!.analyst_id).not.toBe(first.data[0]!.analyst_id);
    expect((await list.toArray()).map((person) => person.name).sort()).toEqual([
      'Sdk Judge One',
      'Sdk Judge Two',
    ]);

    const target = await admin.targets.create({ description: 'A lighthouse on a cliff' });
    expect((await admin.targets.list().toArray()).map((t) => t.target_id)).toContain(
      target.target_id,
    );
    await admin.targets.delete(target.target_id);
    await expect(admin.targets.get(target.target_id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('submits an analyst’s work with a sketch as multipart, and reads the sketch back', async () => {
    const session = await admin.sessions.create({
      type: 'remote_viewing',
      target: 'A lighthouse on a cliff',
      engine: 'analyst',
      analyst_count: 1,
      analyst_ids: [analyst.analystId],
    });
    const [assignment] = await analystClient.assignments.list({ status: 'assigned' }).toArray();
    expect(assignment).toMatchObject({ work_id: session.session_id, target: null });

    const submitted = await analystClient.sessions.submitResults(session.session_id, {
      descriptors: ['tall', 'water'],
      coordinates: { latitude: 48.4, longitude: -4.8 },
      notes: 'White tower, spray.',
      sketches: [new Blob([PNG], { type: 'image/png' })],
    });
    // The only analyst's submission closes the work at once: the assignment answers completed.
    expect(submitted.status).toBe('completed');
    const sketches = submitted.submission!.sketches;
    expect(sketches).toHaveLength(1);
    expect(sketches[0]!.content_type).toBe('image/png');
    const blob = await analystClient.assignments.sketch(
      submitted.assignment_id,
      sketches[0]!.sketch_id,
    );
    expect(Buffer.from(await blob.arrayBuffer()).equals(PNG)).toBe(true);

    const done = await admin.waitFor(session, { timeoutMs: DEADLINE_MS });
    expect(done.status).toBe('completed');
  });

  it('imports history as NDJSON and CSV, and downloads a report as a file', async () => {
    const ndjson = [
      { external_id: 'sdk-1', type: 'dowsing', date: '2021-05-01', target: 'Sdk well one' },
      { external_id: 'sdk-2', type: 'tarot', date: '2021-05-02', target: 'Sdk bad row' },
    ]
      .map((row) => JSON.stringify(row))
      .join('\n');
    const report = await admin.history.import(ndjson, 'ndjson');
    expect(report).toMatchObject({ imported: 1, failed: 1, dry_run: false });
    expect(report.errors[0]).toMatchObject({ line: 2 });

    const csv = 'external_id,type,date,target\nsdk-3,analysis,2021-05-03,Sdk csv case\n';
    const dryRun = await admin.history.import(csv, 'csv', { dryRun: true });
    expect(dryRun).toMatchObject({ imported: 1, failed: 0, dry_run: true });
    expect(await admin.history.search({ q: 'Sdk csv case' }).toArray()).toEqual([]);

    const generated = await admin.reports.generate({ report_type: 'history', format: 'csv' });
    await expect
      .poll(async () => (await admin.reports.get(generated.report_id)).status, {
        interval: 200,
      })
      .toBe('completed');
    const file = await admin.reports.download(generated.report_id);
    const text = await file.text();
    expect(text.split('\n')[0]).toContain('target');
    expect(text).toContain('Sdk well one');
  });
});
