// bench/run.mjs's settings, read once from the environment (see run.mjs's header for the
// variables), and the constants its phases share: the targets, the error share a phase may have,
// the request bodies both servers are loaded with, and how long to wait for processes and
// deliveries.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wholeNumber } from './settings.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS = join(ROOT, 'bench', 'results');
const env = process.env;

export const CONFIG = {
  databaseUrl: env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/sas_bench',
  redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
  redisPrefix: 'sas-bench',
  duration: wholeNumber('BENCH_DURATION', 10),
  connections: wholeNumber('BENCH_CONNECTIONS', 50),
  rounds: wholeNumber('BENCH_ROUNDS', 1),
  warmup: wholeNumber('BENCH_WARMUP', 2),
  fixedRate: 1000,
  poolMax: wholeNumber('DATABASE_POOL_MAX', 10),
  logLevel: env.BENCH_LOG_LEVEL || 'warn',
  profile: env.BENCH_PROFILE === '1',
  clientId: 'sas-bench-client',
  clientSecret: 'sas-bench-secret-7f3a9c2e1b5d',
  // Production refuses to start without one. Fixed, so that what one run sealed (signing keys,
  // webhook secrets) the next one can open; SIGNING_KEY_SECRET in the environment wins.
  signingKeySecret: env.SIGNING_KEY_SECRET || 'sas-bench-signing-key-secret-5c1e8a7d3f90b2e4',
  simulatedStepMs: 500,
  webhooks: {
    enabled: env.BENCH_WEBHOOKS !== '0',
    endpoints: wholeNumber('BENCH_WEBHOOK_ENDPOINTS', 4),
    backlogSessions: wholeNumber('BENCH_WEBHOOK_SESSIONS', 1000),
    workers: wholeNumber('BENCH_WEBHOOK_WORKERS', 1), // worker processes sharing the endpoints' slots
    pacedRate: wholeNumber('BENCH_WEBHOOK_RATE', 50), // sessions/s
    pacedDuration: wholeNumber('BENCH_WEBHOOK_DURATION', 10), // s
    // The worker's own settings (passed through to it unchanged), to size the direct reference.
    endpointConcurrency: wholeNumber('WEBHOOK_ENDPOINT_CONCURRENCY', 10),
    workerConcurrency: wholeNumber('WEBHOOK_WORKER_CONCURRENCY', 100),
    // CPU profiles of the worker over the drain and the paced windows (bench/results/profiles/).
    profile: env.BENCH_WEBHOOK_PROFILE === '1',
  },
};
CONFIG.lists = {
  enabled: env.BENCH_LISTS !== '0',
  sessions: wholeNumber('BENCH_LIST_SESSIONS', 1_000_000),
  requests: wholeNumber('BENCH_LIST_REQUESTS', 200),
};
CONFIG.analyses = {
  enabled: env.BENCH_ANALYSES !== '0',
  backlog: wholeNumber('BENCH_ANALYSES_BACKLOG', 2000), // quick_scans submitted before the worker starts
  sessionBacklog: wholeNumber('BENCH_ANALYSES_SESSIONS', 1000, 0), // the same worker on sessions; 0 = skip
  pacedRate: wholeNumber('BENCH_ANALYSES_RATE', 20), // submits/s in the latency phase
  pacedDuration: wholeNumber('BENCH_ANALYSES_DURATION', 10), // s
};
CONFIG.patterns = {
  enabled: env.BENCH_PATTERNS !== '0',
  items: wholeNumber('BENCH_PATTERN_ITEMS', 10_000),
  requests: wholeNumber('BENCH_PATTERN_REQUESTS', 30),
  warmup: 3,
};
CONFIG.dowsing = {
  enabled: env.BENCH_DOWSING !== '0',
  heatmapReadings: wholeNumber('BENCH_HEATMAP_READINGS', 1_000_000),
  heatmapRequests: wholeNumber('BENCH_HEATMAP_REQUESTS', 200), // per box, timed
  heatmapWarmup: 20, // per box, untimed
};
CONFIG.history = {
  enabled: env.BENCH_HISTORY !== '0',
  cases: wholeNumber('BENCH_HISTORY_CASES', 1_000_000),
  requests: wholeNumber('BENCH_HISTORY_REQUESTS', 200), // per combination, timed
  warmup: 20, // per combination, untimed
  importRows: wholeNumber('BENCH_HISTORY_IMPORT_ROWS', 100_000, 0), // 0 = skip the import
};
// Its sizes are bench/reports.mjs's own settings (BENCH_REPORT_*).
CONFIG.reports = { enabled: env.BENCH_REPORTS !== '0' };
// Its sizes are bench/audit.mjs's own settings (BENCH_AUDIT_*).
CONFIG.audit = { enabled: env.BENCH_AUDIT !== '0' };
export const TARGETS = { readRatio: 0.9, createRatio: 0.8, fixedRateP99Ms: 15 };
export const MAX_ERROR_SHARE = 0.01;
export const CREATE_BODY = JSON.stringify({
  type: 'remote_viewing',
  target: 'The object in the sealed envelope #4711',
});
/** POST /v1/analysis/targets: the API's own quick_scan example — no material, so nothing to fetch. */
export const SUBMIT_BODY = JSON.stringify({
  target_type: 'object',
  reference_material: {},
  analysis_type: 'quick_scan',
  description: 'The sealed envelope #4711',
});

/**
 * How the webhook phase waits: for a process to start (the worker, the receiver) up to startMs;
 * for deliveries as long as they keep coming — giving up once none arrived (or none changed state)
 * for idleMs — and at most maxMs in all. A slow machine makes the phase slower, not failed.
 */
export const WAIT = { startMs: 120_000, idleMs: 30_000, maxMs: 15 * 60_000 };
