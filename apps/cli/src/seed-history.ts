import { parseArgs } from 'node:util';
import pg from 'pg';
import { newUuid, parsePublicId, toPublicId } from '#common';
import { loadSettings, SettingsError } from '#config';
import { seedHistoryCases } from './seeded-history.js';

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
rest. Case n has the same content in every run. Ends with VACUUM ANALYZE history_cases.
Uses DATABASE_URL.`;

/** `npm run db:seed-history`: a large, realistic history in one organisation. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1000000' },
      organization: { type: 'string' },
      mode: { type: 'string', default: 'live' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1)
    throw new UsageError('--count must be a positive integer');
  const mode = values.mode;
  if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');

  const client = new pg.Client({ connectionString: loadSettings().databaseUrl });
  await client.connect();
  try {
    const organizationId = values.organization
      ? await existingOrganization(client, values.organization)
      : await createOrganization(client);
    const started = Date.now();
    const { inserted } = await seedHistoryCases(
      client,
      { organizationId, mode },
      { to: count },
      ({ done }) => process.stdout.write(`\r${done.toLocaleString('en')} cases`),
    );
    process.stdout.write('\nVACUUM ANALYZE history_cases …');
    await client.query('VACUUM ANALYZE history_cases');
    const skipped = count - inserted;
    process.stdout.write(
      `\nSeeded ${inserted.toLocaleString('en')} history cases in ${toPublicId('organization', organizationId)} (${mode}) in ${((Date.now() - started) / 1000).toFixed(0)} s${skipped > 0 ? `; ${skipped.toLocaleString('en')} were there already` : ''}.\n`,
    );
  } finally {
    await client.end();
  }
}

/** The UUID of an organisation given as org_… or a UUID; it must exist. */
async function existingOrganization(client: pg.Client, given: string): Promise<string> {
  const uuid = parsePublicId('organization', given) ?? given;
  const { rows } = await client.query(
    `SELECT id FROM organizations WHERE id::text = $1`, // ::text: a malformed value is no match, not an error
    [uuid.toLowerCase()],
  );
  if (rows.length === 0) throw new UsageError(`--organization: no organisation ${given}`);
  return uuid.toLowerCase();
}

async function createOrganization(client: pg.Client): Promise<string> {
  const uuid = newUuid();
  await client.query(
    `INSERT INTO organizations (id, name, plan, tier, engine_seed)
     VALUES ($1, $2, 'enterprise', 'custom', md5(random()::text))`,
    [uuid, `History scale test ${new Date().toISOString()}`],
  );
  return uuid;
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  const message =
    error instanceof SettingsError || error instanceof UsageError
      ? `${error.message}\n\n${USAGE}`
      : `Seeding failed: ${String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
