import { loadSettings } from '#config';
import { createDataSource, ensureDatabase, pendingSchemaChanges } from '#database';
import { ALL_ENTITIES } from './entities.js';

/**
 * `npm run db:diff`: prints the SQL that would bring the database in line with
 * the entities — the starting point of a new migration file, to be reviewed.
 */
async function main(): Promise<void> {
  const { databaseUrl } = loadSettings();
  await ensureDatabase(databaseUrl);
  const dataSource = createDataSource({ url: databaseUrl, entities: ALL_ENTITIES });
  await dataSource.initialize();
  try {
    const changes = await pendingSchemaChanges(dataSource);
    process.stdout.write(changes.length === 0 ? '-- no changes\n' : `${changes.join(';\n')};\n`);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
