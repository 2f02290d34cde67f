import { toPublicId } from '#common';
import { runSeedCommand } from './seed-command.js';
import { analyzeSeededHistory, seedHistoryCases } from './seeded-history.js';

const USAGE = `Usage: npm run db:seed-history -- [--count N] [--organization ORG_ID] [--mode live|test]

Adds N history cases (default 1,000,000) to one organisation, for measuring history search at
scale. They are imported cases (source_type import, external_id seed-1 … seed-N) over the past
ten years, newest last: 40 % remote viewing, 25 % dowsing, 25 % analysis, 10 % automatic writing;
targets and descriptions from a vocabulary of about 500 words drawn Zipf-like (a few words in
most cases, many in few), up to 6 descriptors of the engines' controlled list; 90 % located around
37 world cities (Gaussian, σ 8–25 km), 95 % completed, about 20 % with a verified outcome
(hit, partial or miss, its true place near the case's), 3 % classified.

Without --organization it creates an enterprise organisation for them (a new one every run).
With --organization (org_… or its UUID) it adds to that one; case numbers already there are
skipped, so running it again with the same --count adds nothing and a larger --count adds the
rest. Case n has the same content in every run (its date aside: a run spreads its cases over
the ten years up to now). Ends with VACUUM ANALYZE history_cases.
Uses DATABASE_URL.`;

/** `npm run db:seed-history`: a large, realistic history in one organisation. */
runSeedCommand(USAGE, 'History scale test', async ({ count, organizationId, mode }, sql) => {
  const started = Date.now();
  const { inserted } = await seedHistoryCases(
    sql,
    { organizationId, mode },
    { to: count },
    ({ done }) => process.stdout.write(`\r${done.toLocaleString('en')} cases`),
  );
  process.stdout.write('\nVACUUM ANALYZE history_cases …');
  await analyzeSeededHistory(sql);
  const skipped = count - inserted;
  process.stdout.write(
    `\nSeeded ${inserted.toLocaleString('en')} history cases in ${toPublicId('organization', organizationId)} (${mode}) in ${((Date.now() - started) / 1000).toFixed(0)} s${skipped > 0 ? `; ${skipped.toLocaleString('en')} were there already` : ''}.\n`,
  );
});
