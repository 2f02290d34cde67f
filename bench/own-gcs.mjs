// The bench process's own garbage collections. A request timed one at a time includes any pause
// of the process that times it: a pause while the answer waits in the socket is counted as the
// service's latency. The sequential phases (history, session lists) report how many of their
// timed requests overlapped such a pause, so a p99 that one of them set can be told apart.
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** Starts recording this process's GC pauses; `overlapping(spans)` counts the spans one touched. */
export function ownGcPauses() {
  const pauses = [];
  const record = (entries) => {
    for (const entry of entries)
      pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration });
  };
  const observer = new PerformanceObserver((list) => record(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  return {
    /** Spans as [start, end] in performance.now() milliseconds. */
    overlapping(spans) {
      record(observer.takeRecords()); // entries not yet delivered to the callback
      return spans.filter(([from, to]) => pauses.some((p) => p.from < to && p.to > from)).length;
    },
    stop: () => observer.disconnect(),
  };
}

/** A span of `performance.now()` from `started` to now. */
export const spanSince = (started) => [started, performance.now()];
