import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { newUuid, parsePublicId } from '#common';
import { loadSettings, SettingsError, type Settings } from '#config';
import { createDataSource, ReadReplicas, Sql, WritePositions } from '#database';
import { OrganizationsRepository } from '#organizations';

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
  seed: (target: SeedTarget, sql: Sql) => Promise<void>,
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
  seed: (target: SeedTarget, sql: Sql) => Promise<void>,
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

  const settings = loadSettings();
  const database = await openDatabase(settings);
  try {
    const organizations = new OrganizationsRepository(database.sql);
    const organizationId = values.organization
      ? await existingOrganization(organizations, values.organization)
      : await createOrganization(database.sql, organizations, newOrganizationName);
    await seed({ count, organizationId, mode }, database.sql);
  } finally {
    await database.close();
  }
}

/**
 * The service's data layer on DATABASE_URL, as the apps build it, for the
 * organisation to seed; one connection, and no replicas (what a command
 * writes it reads back at once).
 */
export async function openDatabase(
  settings: Settings,
): Promise<{ sql: Sql; close(): Promise<void> }> {
  const dataSource = createDataSource({ url: settings.databaseUrl, poolMax: 1 });
  await dataSource.initialize();
  const primaryOnly = { ...settings, databaseReplicaUrls: [] };
  const replicas = new ReadReplicas(primaryOnly, dataSource);
  const sql = new Sql(dataSource, replicas, new WritePositions(replicas, primaryOnly, dataSource));
  return { sql, close: () => dataSource.destroy() };
}

class UsageError extends Error {}

/** The UUID of an organisation given as org_… or a UUID; it must exist. */
async function existingOrganization(
  organizations: OrganizationsRepository,
  given: string,
): Promise<string> {
  const uuid = (parsePublicId('organization', given) ?? given).toLowerCase();
  if (!(await organizations.exists(uuid))) {
    throw new UsageError(`--organization: no organisation ${given}`);
  }
  return uuid;
}

/** A new enterprise organisation (custom tier: no quotas) to hold the seeded rows. */
async function createOrganization(
  sql: Sql,
  organizations: OrganizationsRepository,
  name: string,
): Promise<string> {
  const now = new Date();
  const organization = {
    id: newUuid(),
    name: `${name} ${now.toISOString()}`,
    plan: 'enterprise' as const,
    tier: 'custom' as const,
    maxConcurrentSessions: null,
    requestsPerMinute: null,
    requestsPerHour: null,
    requestsPerDay: null,
    isBootstrap: false,
    engineSeed: randomBytes(16).toString('hex'),
    createdAt: now,
    updatedAt: now,
  };
  await sql.transaction((tx) => organizations.insert(tx, organization));
  return organization.id;
}
