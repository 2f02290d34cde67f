import { parseArgs } from 'node:util';
import pg from 'pg';
import { newUuid, parsePublicId } from '#common';
import { loadSettings, SettingsError } from '#config';

/** What a seeding command was asked for: how many rows, into which organisation and mode. */
export interface SeedTarget {
  count: number;
  /** The organisation's UUID: the one given (which exists), or a new enterprise one. */
  organizationId: string;
  mode: 'live' | 'test';
}

/**
 * A seeding command's frame (`npm run db:seed-…`): reads `--count`,
 * `--organization`, `--mode` and `--help`, connects to DATABASE_URL, finds the
 * organisation or creates one named `newOrganizationName`, runs `seed`, and
 * turns a usage or settings error into its message and `usage` on stderr and
 * exit code 1.
 */
export function runSeedCommand(
  usage: string,
  newOrganizationName: string,
  seed: (client: pg.Client, target: SeedTarget) => Promise<void>,
): void {
  main(usage, newOrganizationName, seed).catch((error: unknown) => {
    const message =
      error instanceof SettingsError || error instanceof UsageError
        ? `${error.message}\n\n${usage}`
        : `Seeding failed: ${String(error)}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  });
}

async function main(
  usage: string,
  newOrganizationName: string,
  seed: (client: pg.Client, target: SeedTarget) => Promise<void>,
): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '1000000' },
      organization: { type: 'string' },
      mode: { type: 'string', default: 'live' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(`${usage}\n`);
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
      : await createOrganization(client, newOrganizationName);
    await seed(client, { count, organizationId, mode });
  } finally {
    await client.end();
  }
}

class UsageError extends Error {}

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

async function createOrganization(client: pg.Client, name: string): Promise<string> {
  const uuid = newUuid();
  await client.query(
    `INSERT INTO organizations (id, name, plan, tier, engine_seed)
     VALUES ($1, $2, 'enterprise', 'custom', md5(random()::text))`,
    [uuid, `${name} ${new Date().toISOString()}`],
  );
  return uuid;
}
