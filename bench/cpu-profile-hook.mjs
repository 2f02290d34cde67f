// Preloaded into a server (node --import) when BENCH_PROFILE=1; driven by the bench over the IPC channel:
//   { profile: 'start' }                 starts the V8 CPU profiler
//   { profile: 'stop', file: '/x.cpuprofile' } stops it, writes the file, answers { profileWritten: file }
// Open a profile in Chrome DevTools or summarise it with `node bench/profile-summary.mjs FILE`.
// (Not a signal: Nest's enableShutdownHooks() shuts the API down on SIGUSR2 and SIGHUP too, and
// `node --cpu-prof` writes nothing because Nest re-raises SIGTERM after its shutdown hooks.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';

if (process.send) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  let queue = Promise.resolve();
  process.on('message', (message) => {
    if (!message || typeof message !== 'object' || !('profile' in message)) return;
    queue = queue.then(async () => {
      if (message.profile === 'start') {
        await session.post('Profiler.start');
        process.send({ profileStarted: true });
      } else if (message.profile === 'stop') {
        const { profile } = await session.post('Profiler.stop');
        mkdirSync(dirname(message.file), { recursive: true });
        writeFileSync(message.file, JSON.stringify(profile));
        process.send({ profileWritten: message.file });
      }
    });
  });
  process.channel?.unref(); // never keep the process alive for this
}
