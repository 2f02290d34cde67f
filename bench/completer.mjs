// Stands in for a worker during bench/run.mjs's HTTP phases: none runs then, and every create or
// submit would otherwise stay initiated or queued (cheap counts, no growing backlog for the
// worker). Both servers' work ends the same way (failed, cancelled); the seed session is kept.

import pg from 'pg';
import { describeError } from './errors.mjs';
import { log, sleep, uuidOf, uuidOfOrganization } from './helpers.mjs';
import { CONFIG } from './run-config.mjs';

/**
 * Ends the bench organisation's initiated sessions — and, with BENCH_ANALYSES, its queued
 * analyses — every 50 ms until stopped (see its use). A failed pass is retried (a pool
 * reconnects); stop() resolves with the first error, if any.
 */
export async function startCompleter(keptPublicId, organizationPublicId) {
  const kept = uuidOf(keptPublicId);
  const organization = uuidOfOrganization(organizationPublicId);
  const pool = new pg.Pool({ connectionString: CONFIG.databaseUrl, max: 1 });
  pool.on('error', () => undefined);
  let stopped = false;
  let firstError = null;
  const loop = (async () => {
    while (!stopped) {
      try {
        await pool.query(
          `UPDATE sessions SET status = 'failed', failure_reason = 'cancelled',
                  completed_at = now(), updated_at = now()
            WHERE organization_id = $1 AND mode = 'live' AND status = 'initiated' AND id <> $2`,
          [organization, kept],
        );
        // The analyses twin: as AnalysesService.cancel leaves a row (no event: nobody listens).
        if (CONFIG.analyses.enabled)
          await pool.query(
            `UPDATE analyses SET status = 'failed', failure_reason = 'cancelled',
                    failure_message = 'The analysis was cancelled', completed_at = now(), updated_at = now()
              WHERE organization_id = $1 AND mode = 'live' AND status = 'queued'`,
            [organization],
          );
      } catch (error) {
        if (!firstError) {
          firstError = error;
          log(`completer: ${describeError(error, { oneLine: true })} (retrying)`);
        }
        await sleep(1_000);
      }
      await sleep(50);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await pool.end().catch(() => undefined);
      return firstError;
    },
  };
}
