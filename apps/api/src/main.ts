import { Logger } from '@nestjs/common';
import { loadSettings, SettingsError } from '#config';
import { createApiApp } from './app.js';

async function main(): Promise<void> {
  const settings = loadSettings();
  const app = await createApiApp(settings);
  await app.listen(settings.port);
  new Logger('Api').log({ url: settings.publicUrl, port: settings.port }, 'API listening');
  forceExitAfterGrace(settings.shutdownGraceMs);
}

/** Nest closes gracefully on SIGTERM/SIGINT; this bounds how long in-flight work may hold the exit. */
function forceExitAfterGrace(graceMs: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => setTimeout(() => process.exit(1), graceMs).unref());
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof SettingsError
      ? `${error.message}\n`
      : `API failed to start: ${String((error as Error)?.stack ?? error)}\n`,
  );
  process.exit(1);
});
