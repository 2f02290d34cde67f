import { toPublicId } from '#common';
import { HistoryCaseRollupsRepository, WorkCasesRepository } from '#history';
import { SessionsRepository } from '#sessions';
import { runSeedCommand } from './seed-command.js';

/**
 * Rows per INSERT (and transaction). The finished sessions' history cases are written by one more
 * statement per chunk (libs/history's WorkCasesRepository), so the rollups' statement triggers run
 * once per chunk: 50,000 sessions seed in 7–8 s (about 6,500 rows/s), where the row triggers that
 * wrote one case per row (until migration 1764126000000) took 69 s on the same machine.
 */
const CHUNK = 1_000;
/**
 * Rows between two VACUUM ANALYZEs of the rollup tables the cases update. Autovacuum comes round
 * once a minute at best, and after a TRUNCATE the planner takes the tables for empty, so the
 * rollup statements would read ever more dead rollup versions.
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
  const sessions = new SessionsRepository(sql, new WorkCasesRepository());
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
