import type { Client, WorkRef } from '@sas/sdk';
import { colourEnabled, type Output } from './output.js';

/**
 * Waits for a session, analysis or dowsing query with the SDK's `waitFor`
 * (over the WebSocket where the runtime has one), showing its progress on
 * stderr: a live bar (cli-progress) on a terminal, one line per step
 * otherwise, so logs and tests see it too; nothing with --json.
 */
export async function waitWithProgress(client: Client, work: WorkRef, id: string, out: Output) {
  const terminal = process.stderr.isTTY === true && !out.json;
  let onProgress: (progress: number) => void;
  let stop = () => undefined as void;
  if (terminal) {
    const { SingleBar, Presets } = await import('cli-progress');
    const bar = new SingleBar(
      {
        format: `${id} [{bar}] {percentage}% | {duration_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
        stream: process.stderr,
      },
      colourEnabled(process.stderr) ? Presets.shades_classic : Presets.legacy,
    );
    bar.start(100, 0);
    onProgress = (progress) => bar.update(progress);
    stop = () => bar.stop();
  } else {
    onProgress = (progress) => out.info(`${id} progress ${progress}%`);
  }
  try {
    const done = await client.waitFor(work, { onProgress });
    onProgress(100);
    return done;
  } finally {
    stop();
  }
}
