// Preloaded (node --import) into the servers bench/run.mjs loads: appends each full garbage
// collection to the file BENCH_GC_LOG names, one JSON line {at, ms} (its start in epoch ms, its
// main-thread pause), so that a phase can tell whether one of its server's full collections fell
// inside it. On two cores a full collection's concurrent marking takes both for tens of
// milliseconds, which is what the paced read's p99 shows when it misses (bench/README.md).
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.BENCH_GC_LOG;
if (file) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const at = performance.timeOrigin + entry.startTime;
      appendFileSync(file, `${JSON.stringify({ at, ms: entry.duration })}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
}
