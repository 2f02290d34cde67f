// How long `sas --help` takes to start: the median of 20 runs of
// `node packages/cli/bin/sas.js --help` (build the CLI first). Not a test:
// run it with `node packages/cli/bench/startup.mjs [runs]`. Target: under 150 ms.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'sas.js');
const runs = Number(process.argv[2] ?? 20);
const times = [];
spawnSync(process.execPath, [bin, '--help']); // warm the file cache
for (let i = 0; i < runs; i += 1) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`sas --help exited ${result.status}: ${result.stderr}`);
  times.push(ms);
}
times.sort((a, b) => a - b);
const median =
  times.length % 2
    ? times[(times.length - 1) / 2]
    : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
console.log(
  `sas --help: median ${median.toFixed(1)} ms over ${runs} runs (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)}) on Node ${process.version}`,
);
