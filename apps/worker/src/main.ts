import { Logger } from '@nestjs/common';
import { loadSettings, SettingsError } from '#config';
import { startHealthServer } from './health-server.js';
import { createWorker } from './worker.js';

async function main(): Promise<void> {
  const settings = loadSettings();
  const worker = await createWorker(settings);
  const server =
    settings.workerHealthPort === null
      ? null
      : startHealthServer(worker, settings.workerHealthPort);
  new Logger('Worker').log({ healthPort: settings.workerHealthPort }, 'worker running');
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server?.close();
      // Nest's shutdown hooks close the queues (waiting for active jobs); this bounds the wait.
      setTimeout(() => process.exit(1), settings.shutdownGraceMs).unref();
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof SettingsError
      ? `${error.message}\n`
      : `Worker failed to start: ${String((error as Error)?.stack ?? error)}\n`,
  );
  process.exit(1);
});
