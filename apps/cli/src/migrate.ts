import { loadSettings, SettingsError } from '#config';
import { runMigrations } from '#database';

/** `npm run db:migrate`: creates the database if missing and applies pending migrations. */
async function main(): Promise<void> {
  const settings = loadSettings();
  const ran = await runMigrations({ url: settings.databaseUrl });
  process.stdout.write(
    ran.length === 0
      ? 'Database schema is up to date.\n'
      : `Applied migrations: ${ran.join(', ')}\n`,
  );
}

main().catch((error: unknown) => {
  const message =
    error instanceof SettingsError ? error.message : `Migration failed: ${String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
