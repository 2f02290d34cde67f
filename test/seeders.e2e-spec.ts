import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { DESCRIPTOR_TERMS } from '#engines';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import { startStack, testEnv, type Stack } from './support/stack.js';
import { DEADLINE_MS } from './support/wait.js';

/**
 * `npm run db:seed-sessions` and `db:seed-history` (apps/cli), run as the
 * commands they are, from their TypeScript sources: what they write must be
 * what the API serves (every response is checked against the contract), and
 * the history seed must add only what is missing when run again.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const REGISTER = new URL('./support/ts-register.mjs', import.meta.url).href;

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `apps/cli/src/<script>.ts` with `args` against this file's database. */
async function seed(script: 'seed-sessions' | 'seed-history', args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', REGISTER, `apps/cli/src/${script}.ts`, ...args],
      { cwd: ROOT, env: { ...process.env, ...testEnv() }, timeout: DEADLINE_MS },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const countOf = async (text: string, parameters: unknown[]): Promise<number> =>
  Number((await sql.rows<{ n: string }>(text, parameters))[0]!.n);

describe('npm run db:seed-sessions', () => {
  let org: TestOrganization;
  let token: string;
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token();
  });

  it('adds the sessions: the newest 200 running, the rest completed or failed, in time order', async () => {
    const run = await seed('seed-sessions', [
      '--count',
      '1200',
      '--organization',
      toPublicId('organization', org.organizationId),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Seeded 1,200 sessions in org_\w+ \(live\)/);

    const rows = await sql.rows<{ id: string; status: string; created_at: Date; mode: string }>(
      `SELECT id, status, created_at, mode FROM sessions WHERE organization_id = $1
        ORDER BY created_at, id`,
      [org.organizationId],
    );
    expect(rows).toHaveLength(1200);
    expect(new Set(rows.map((row) => row.mode))).toEqual(new Set(['live']));
    expect(rows.slice(-200).every((row) => row.status === 'in_progress')).toBe(true);
    const finished = rows.slice(0, -200);
    const completed = finished.filter((row) => row.status === 'completed').length;
    expect(finished.every((row) => ['completed', 'failed'].includes(row.status))).toBe(true);
    expect(completed / finished.length).toBeGreaterThan(0.8);
    expect(completed / finished.length).toBeLessThan(0.97);
    // Each id is a UUIDv7 of its creation time, as the API's own would be.
    for (const row of rows.slice(0, 50)) {
      expect(row.id[14]).toBe('7');
      expect(parseInt(row.id.replaceAll('-', '').slice(0, 12), 16)).toBe(row.created_at.getTime());
    }
    // Every finished session has its history case, as a session finished by the worker has.
    expect(
      await countOf(
        `SELECT count(*) AS n FROM history_cases
          WHERE organization_id = $1 AND source_type = 'session'`,
        [org.organizationId],
      ),
    ).toBe(1000);
  });

  it('writes sessions the API lists, filters and shows within its contract', async () => {
    const page = await client.get('/v2/sessions?per_page=100', { token });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(100);
    expect(page.body.pagination.has_next).toBe(true);

    const completed = await client.get('/v2/sessions?status=completed&per_page=20', { token });
    expect(completed.status).toBe(200);
    expect(completed.body.data).toHaveLength(20);
    const id = completed.body.data[0].session_id as string;
    const results = await client.get(`/v1/sessions/${id}/results`, { token });
    expect(results.status).toBe(200);
    expect(results.body.status).toBe('completed');
    expect(results.body.results.confidence_score).toBeGreaterThanOrEqual(0);
    expect(results.body.results.confidence_score).toBeLessThanOrEqual(1);

    const running = await client.get('/v2/sessions?status=in_progress&per_page=100', { token });
    expect(running.body.data).toHaveLength(100);
    const status = await client.get(`/v1/sessions/${running.body.data[0].session_id}`, { token });
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('in_progress');
  });

  it('refuses a count that is not a positive integer, a mode that is not one, and an unknown organisation', async () => {
    for (const [args, message] of [
      [['--count', '0'], '--count must be a positive integer'],
      [['--count', '2.5'], '--count must be a positive integer'],
      [['--count', '10', '--mode', 'staging'], '--mode must be live or test'],
      [
        ['--count', '10', '--organization', 'org_01jh2x7v4ke8rbk3a8y0v0d7qz'],
        '--organization: no organisation org_01jh2x7v4ke8rbk3a8y0v0d7qz',
      ],
    ] as const) {
      const run = await seed('seed-sessions', [...args]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain('Usage: npm run db:seed-sessions');
    }
  });
});

describe('npm run db:seed-history', () => {
  let org: TestOrganization;
  let token: string;
  const publicId = () => toPublicId('organization', org.organizationId);
  beforeAll(async () => {
    org = await createOrganization(stack, client);
    token = await org.token();
  });

  it('adds cases seed-1 … seed-N, and run again adds only the ones missing', async () => {
    const first = await seed('seed-history', ['--count', '1500', '--organization', publicId()]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Seeded 1,500 history cases in org_\w+ \(live\)/);

    const again = await seed('seed-history', ['--count', '1500', '--organization', publicId()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Seeded 0 history cases');
    expect(again.stdout).toContain('1,500 were there already');

    const more = await seed('seed-history', ['--count', '2000', '--organization', publicId()]);
    expect(more.code).toBe(0);
    expect(more.stdout).toContain('Seeded 500 history cases');

    const numbers = await sql.rows<{ n: number }>(
      `SELECT substr(external_id, 6)::int AS n FROM history_cases
        WHERE organization_id = $1 AND source_type = 'import' ORDER BY ctid`,
      [org.organizationId],
    );
    const stored = numbers.map((row) => row.n);
    expect(stored.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    // Stored about in their order, as a history filled over the years would be (a row may fill
    // an earlier page's free space, so not exactly): in random order half would step back.
    const stepsBack = stored.filter((n, i) => i > 0 && n < stored[i - 1]!).length;
    expect(stepsBack).toBeLessThan(100);
  });

  it('draws the shares it promises', async () => {
    const [shares] = await sql.rows<Record<string, number>>(
      `SELECT avg((latitude IS NOT NULL)::int)::float8 AS located,
              avg((work_status = 'completed')::int)::float8 AS completed,
              avg((verdict IS NOT NULL)::int)::float8 AS verified,
              avg(classified::int)::float8 AS classified,
              avg((type = 'remote_viewing')::int)::float8 AS remote_viewing,
              avg((type = 'automatic_writing')::int)::float8 AS automatic_writing,
              count(*) FILTER (WHERE verdict IS NOT NULL AND work_status <> 'completed')::float8
                AS verified_unfinished,
              count(*) FILTER (WHERE latitude NOT BETWEEN -90 AND 90
                               OR longitude < -180 OR longitude >= 180)::float8 AS off_the_map
         FROM history_cases WHERE organization_id = $1`,
      [org.organizationId],
    );
    const promised = {
      located: 0.9,
      completed: 0.95,
      verified: 0.95 * 0.21,
      classified: 0.03,
      remote_viewing: 0.4,
      automatic_writing: 0.1,
    };
    for (const [name, share] of Object.entries(promised)) {
      // 2,000 draws: within four standard deviations of the promise.
      const sd = Math.sqrt((share * (1 - share)) / 2000);
      expect(Math.abs(shares![name]! - share), name).toBeLessThan(4 * sd);
    }
    expect(shares!.verified_unfinished).toBe(0);
    expect(shares!.off_the_map).toBe(0);

    const descriptors = await sql.rows<{ term: string }>(
      `SELECT DISTINCT unnest(descriptors) AS term FROM history_cases WHERE organization_id = $1`,
      [org.organizationId],
    );
    expect(descriptors.length).toBeGreaterThan(1);
    for (const { term } of descriptors) expect(DESCRIPTOR_TERMS).toContain(term);
  });

  it('gives case n the same content in every organisation', async () => {
    const other = await createOrganization(stack, client);
    const run = await seed('seed-history', [
      '--count',
      '2000',
      '--organization',
      other.organizationId,
    ]);
    expect(run.code).toBe(0);
    const content = (organizationId: string) =>
      sql.rows(
        `SELECT external_id, type, subtype, work_status, target, descriptors, description,
                latitude, longitude, verdict, outcome, classified
           FROM history_cases WHERE organization_id = $1 AND external_id IN ('seed-1', 'seed-777', 'seed-2000')
          ORDER BY external_id`,
        [organizationId],
      );
    const ours = await content(org.organizationId);
    expect(ours).toHaveLength(3);
    expect(await content(other.organizationId)).toEqual(ours);
  });

  it('writes cases the API searches and shows within its contract', async () => {
    const listed = await client.get('/v1/history/search?limit=100', { token });
    expect(listed.status).toBe(200);
    expect(listed.body.results).toHaveLength(100);
    // Newest first: the seed dates its cases in the order of their numbers.
    const dates = listed.body.results.map((r: { date: string }) => r.date);
    expect(dates).toEqual([...dates].sort().reverse());

    const [verified] = await sql.rows<{ id: string; target: string }>(
      `SELECT id, target FROM history_cases WHERE organization_id = $1 AND verdict = 'hit'
          AND latitude IS NOT NULL AND NOT classified ORDER BY external_id LIMIT 1`,
      [org.organizationId],
    );
    const caseId = toPublicId('history', verified!.id);
    const detail = await client.get(`/v1/history/${caseId}`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ case_id: caseId, target: verified!.target });

    const word = verified!.target.split(' ').at(-1)!;
    const found = await client.get(`/v1/history/search?q=${encodeURIComponent(word)}&limit=100`, {
      token,
    });
    expect(found.status).toBe(200);
    expect(found.body.total).toBeGreaterThan(0);
  });

  it('refuses an organisation that does not exist, and leaves the database as it was', async () => {
    const before = await countOf('SELECT count(*) AS n FROM history_cases', []);
    const run = await seed('seed-history', [
      '--count',
      '10',
      '--organization',
      'org_01jh2x7v4ke8rbk3a8y0v0d7qz',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--organization: no organisation org_01jh2x7v4ke8rbk3a8y0v0d7qz');
    const malformed = await seed('seed-history', ['--count', '10', '--organization', 'nonsense']);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('--organization: no organisation nonsense');
    expect(await countOf('SELECT count(*) AS n FROM history_cases', [])).toBe(before);
  });
});
