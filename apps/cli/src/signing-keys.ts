import { SigningKeyService, SigningKeysRepository } from '#auth';
import { loadSettings, SettingsError, type AppSettings } from '#config';
import { RedisService } from '#queue';
import { openDatabase } from './seed-command.js';

const USAGE = `Usage: npm run signing-keys -- list
       npm run signing-keys -- withdraw <kid>

list       the token-signing keys: kid, when each was created, signs from and retires
withdraw   deletes a key thought compromised: every API instance re-reads its keys at
           once (announced on Redis), so the tokens it signed are refused everywhere;
           when it is the key signing now, a new key replaces it first and signs at once
           (clients then sign in again). Needs DATABASE_URL, REDIS_URL and REDIS_PREFIX
           (and SIGNING_KEY_SECRET) as the services have them.`;

/** The operator's signing-key command (docs/authentication.md, "Signing keys"). */
async function main(): Promise<void> {
  // Not parseArgs: a kid is base64url and may start with "-".
  const positionals = process.argv.slice(2);
  const [command, kid] = positionals;
  if (command === undefined || command === '--help' || command === '-h')
    return void process.stdout.write(`${USAGE}\n`);
  if (command !== 'list' && command !== 'withdraw')
    throw new UsageError(`unknown command ${command}`);
  if (command === 'withdraw' && (kid === undefined || positionals.length !== 2)) {
    throw new UsageError('withdraw takes one kid (see list)');
  }
  const settings: AppSettings = loadSettings();
  const database = await openDatabase(settings);
  const redis = new RedisService(settings);
  try {
    const repository = new SigningKeysRepository(database.sql);
    if (command === 'list') {
      for (const key of await repository.all()) {
        process.stdout.write(
          `${key.kid}  created ${key.createdAt.toISOString()}  signs from ${key.activatesAt.toISOString()}  ${key.retiresAt ? `retires ${key.retiresAt.toISOString()}` : 'not retiring'}\n`,
        );
      }
      return;
    }
    const keys = new SigningKeyService(database.sql, repository, settings, redis);
    const replacement = await keys.withdraw(kid!);
    process.stdout.write(
      `withdrew ${kid}${replacement ? `; ${replacement} signs from now` : ''}; every instance was told\n`,
    );
  } finally {
    redis.client.disconnect();
    await database.close();
  }
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  const message =
    error instanceof SettingsError || error instanceof UsageError
      ? `${error.message}\n\n${USAGE}`
      : `signing-keys failed: ${String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
