import { toPublicId } from '#common';
import { HistoryCaseRollupsRepository } from '#history';
import { SessionsRepository } from '#sessions';
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
runSeedCommand(USAGE, 'Scale test', async ({ count, organizationId, mode }, sql) => {
  const sessions = new SessionsRepository(sql);
  const rollups = new HistoryCaseRollupsRepository(sql);
  const tenant = { organizationId, mode };
  const started = Date.now();
  for (let done = 0; done < count; done += CHUNK) {
    const chunk = { from: done, rows: Math.min(CHUNK, count - done), of: count };
    await sql.transaction((tx) =>
      sessions.seed(tx, tenant, { ...chunk, running: RUNNING, results: SAMPLE_RESULTS }),
    );
    if ((done + CHUNK) % MAINTAIN_EVERY === 0) {
      await rollups.vacuumAcrossTenants();
    }
    process.stdout.write(`\r${Math.min(done + CHUNK, count).toLocaleString('en')} sessions`);
  }
  await sessions.vacuumAcrossTenants();
  process.stdout.write(
    `\nSeeded ${count.toLocaleString('en')} sessions in ${toPublicId('organization', organizationId)} (${mode}) in ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
  );
});
