import type pg from 'pg';
import { toPublicId } from '#common';
import { runSeedCommand } from './seed-command.js';

/**
 * Rows per INSERT (and transaction). Every completed or failed session writes its history case
 * through a row trigger, and each case updates the same few rollup rows; in one transaction every
 * such update leaves a version the next must step over, so a row costs more the more rows came
 * before it in its transaction: 0.83 ms at 500 rows, 0.91 ms at 2,000, 3.4 ms at 20,000 (about
 * 8 ms at 50,000, which made a million take hours).
 */
const CHUNK = 1_000;
/**
 * Rows between two VACUUM ANALYZEs of the rollup tables those triggers update. Autovacuum comes
 * round once a minute at best, and after a TRUNCATE the planner takes the tables for empty, so the
 * triggers' statements read ever more dead rollup versions: 883 rows/s falling to 514 within a
 * minute, from empty tables; with this, about 1,200 rows/s throughout. (history_cases only grows
 * by inserts: vacuuming it too made the seeding slower, 900 rows/s.)
 */
const MAINTAIN_EVERY = 10 * CHUNK;
const RUNNING = 200;

/** What a completed session's results weigh in the table: one realistic result. */
const SAMPLE_RESULTS = {
  coordinates: { latitude: 51.5074, longitude: -0.1278, confidence: 0.41 },
  descriptors: ['water', 'structure', 'cold', 'metal'],
  sketches: [
    { index: 0, description: 'A tall structure beside water' },
    { index: 1, description: 'Cold metal surfaces' },
  ],
  confidence_score: 0.37,
  validation_metrics: { accuracy: 0.42, reliability: 0.38 },
  statistical_validation: { p_value: 0.41, confidence_interval: [0.13, 0.52], sample_size: 36 },
  collaborative_insights: [1, 2, 3].map((n) => ({
    analyst_id: `analyst_sim_${n}`,
    contribution_weight: 0.3333,
    key_insights: ['water', 'structure', 'cold'],
  })),
};

const USAGE = `Usage: npm run db:seed-sessions -- [--count N] [--organization ORG_ID] [--mode live|test]

Adds N sessions (default 1,000,000) to one organisation, for measuring lists at scale:
created over the past year, types evenly spread, ${RUNNING} running and the rest 90 % completed
(confidence scores spread over 0–1, leads among 50 analysts) and 10 % failed. With
--organization (org_… or its UUID) it adds them to that organisation, which must exist;
without, it creates an enterprise organisation for them. Uses DATABASE_URL.`;

/** `npm run db:seed-sessions`: a large, realistic sessions table in one organisation. */
runSeedCommand(USAGE, 'Scale test', async (client, { count, organizationId, mode }) => {
  const started = Date.now();
  for (let done = 0; done < count; done += CHUNK) {
    await insertChunk(client, organizationId, mode, {
      from: done,
      rows: Math.min(CHUNK, count - done),
      of: count,
    });
    if ((done + CHUNK) % MAINTAIN_EVERY === 0) {
      await client.query('VACUUM ANALYZE history_case_rollups, history_analyst_rollups');
    }
    process.stdout.write(`\r${Math.min(done + CHUNK, count).toLocaleString('en')} sessions`);
  }
  await client.query('VACUUM ANALYZE sessions');
  process.stdout.write(
    `\nSeeded ${count.toLocaleString('en')} sessions in ${toPublicId('organization', organizationId)} (${mode}) in ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
  );
});

/**
 * One INSERT … SELECT over generate_series, rows `from`..`from + rows` of
 * `of`: created in order over the past year (the newest last, as the API
 * appends them, so the table is as correlated with time as a real one), ids
 * UUIDv7 of their creation time. The RUNNING newest of all are in progress.
 */
async function insertChunk(
  client: pg.Client,
  organizationId: string,
  mode: string,
  chunk: { from: number; rows: number; of: number },
): Promise<void> {
  await client.query(
    `WITH drawn AS (
       SELECT i, now() - interval '365 days' * (1 - i::float8 / $6) AS created_at, random() AS r,
              (random() + random() + random()) / 3 AS score, 1 + floor(random() * 50)::int AS analyst
         FROM generate_series($7::int + 1, $7::int + $3::int) AS i
     ), shaped AS (
       SELECT *, CASE WHEN i > $6 - $4 THEN 'in_progress' WHEN r < 0.9 THEN 'completed' ELSE 'failed' END AS status
         FROM drawn
     )
     INSERT INTO sessions (id, organization_id, mode, type, target, modality, duration_minutes,
                           privacy_level, status, progress, engine, engine_version, results,
                           confidence_score, analyst_id, evidence, failure_reason, event_sequence,
                           created_at, updated_at, started_at, completed_at, estimated_completion,
                           analyst_count)
     SELECT (lpad(to_hex(floor(extract(epoch FROM created_at) * 1000)::bigint), 12, '0') || '7'
               || substr(md5(random()::text), 1, 3) || '8' || substr(md5(random()::text), 1, 15))::uuid,
            $1, $2, (ARRAY['remote_viewing', 'dowsing', 'automatic_writing'])[1 + i % 3],
            'Seeded target ' || i, (ARRAY['visual', 'kinesthetic', 'auditory', NULL])[1 + i % 4],
            30, 'private', status,
            CASE status WHEN 'completed' THEN 100 WHEN 'failed' THEN 50 ELSE 40 END,
            'simulated', 'simulated-1.1.0',
            CASE WHEN status = 'completed' THEN $5::jsonb END,
            CASE WHEN status = 'completed' THEN round(score::numeric, 4) END,
            CASE WHEN status = 'completed' THEN 'analyst_sim_' || analyst END,
            CASE WHEN status = 'completed' THEN 'prior' END,
            CASE WHEN status = 'failed' THEN 'engine_failure' END,
            CASE status WHEN 'in_progress' THEN 6 ELSE 12 END,
            created_at, created_at + interval '6 seconds', created_at + interval '1 second',
            CASE WHEN status <> 'in_progress' THEN created_at + interval '6 seconds' END,
            created_at + interval '7 seconds', 1
       FROM shaped ORDER BY i`,
    [
      organizationId,
      mode,
      chunk.rows,
      RUNNING,
      JSON.stringify(SAMPLE_RESULTS),
      chunk.of,
      chunk.from,
    ],
  );
}
