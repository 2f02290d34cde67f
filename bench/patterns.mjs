// POST /v2/analysis/pattern-recognition on 10,000 completed analyses (see bench/README.md,
// "Pattern recognition"): a new organisation seeded by plain SQL — coordinates scattered over
// Europe with a few dense clusters, descriptors from the engine's vocabulary (more of some terms
// in each cluster), created_at over the past year with more on weekdays and in working hours —
// then `{filter: {kinds: ['analysis']}}` asked sequentially, 30 times after 3 untimed.
// Target: p99 under 1 s. Then where the time goes (bench/pattern-breakdown.mjs).

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { TypeID, typeid } from 'typeid-js';
import { BENCH_LIMITS, assertUnthrottled } from './limits.mjs';
import { breakdownLines, patternBreakdown } from './pattern-breakdown.mjs';

export const PATTERN_P99_TARGET_MS = 1000;
const BODY = JSON.stringify({ filter: { kinds: ['analysis'] } });
const REQUEST_TIMEOUT_MS = 60_000;
const INSERT_BATCH = 2_000;
const DAY_MS = 86_400_000;

/**
 * Dense spots (sizes for 10,000 items, scaled with the count), each a Gaussian of `sigma`
 * metres around its centre, with terms its items mention more often than chance.
 */
const CLUSTERS = [
  { latitude: 52.52, longitude: 13.405, size: 400, sigma: 1200, terms: ['water', 'bridge'] },
  { latitude: 38.722, longitude: -9.139, size: 300, sigma: 1500, terms: ['stone', 'warm'] },
  { latitude: 48.208, longitude: 16.373, size: 250, sigma: 1000, terms: ['building', 'tall'] },
  { latitude: 59.913, longitude: 10.752, size: 200, sigma: 800, terms: ['cold', 'wind'] },
  { latitude: 40.852, longitude: 14.268, size: 150, sigma: 1500, terms: ['mountain', 'dry'] },
];
/** The rest scattered uniformly (by area) over this box. */
const SCATTER = { south: 36, north: 60, west: -10, east: 30 };

/** mulberry32: the same seeded rows every run. */
function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` completed analyses of one organisation and mode, as rows of `analyses`. */
export function patternRows(organizationUuid, count, vocabulary, now = Date.now()) {
  const random = seededRandom(0xa11ce5);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const scale = count / 10_000;
  const spots = CLUSTERS.map((c) => ({ ...c, size: Math.max(5, Math.round(c.size * scale)) }));
  const clustered = spots.reduce((sum, c) => sum + c.size, 0);
  const rad = Math.PI / 180;
  const [zLow, zHigh] = [Math.sin(SCATTER.south * rad), Math.sin(SCATTER.north * rad)];
  const rows = [];
  for (let i = 0; i < count; i++) {
    // Where: the first `clustered` items in the spots, the rest scattered.
    let latitude;
    let longitude;
    let favoured = [];
    if (i < clustered) {
      let k = i;
      const spot = spots.find((c) => (k -= c.size) < 0);
      latitude = spot.latitude + (gaussian() * spot.sigma) / 111_320;
      longitude =
        spot.longitude + (gaussian() * spot.sigma) / (111_320 * Math.cos(spot.latitude * rad));
      favoured = spot.terms;
    } else {
      latitude = Math.asin(zLow + random() * (zHigh - zLow)) / rad;
      longitude = SCATTER.west + random() * (SCATTER.east - SCATTER.west);
    }
    // What: 15 % quick scans (no descriptors), else 2–6 terms, a spot's own terms more often.
    const roll = random();
    const analysisType = roll < 0.15 ? 'quick_scan' : roll < 0.75 ? 'comprehensive' : 'deep_dive';
    const descriptors = new Set();
    if (analysisType !== 'quick_scan') {
      for (const term of favoured) if (random() < 0.7) descriptors.add(term);
      const wanted = 2 + Math.floor(random() * 5);
      while (descriptors.size < wanted)
        descriptors.add(vocabulary[Math.floor(random() * vocabulary.length)]);
    }
    // When: over the past year, fewer at weekends and at night (rejection sampling).
    let created;
    for (;;) {
      created = new Date(now - random() * 365 * DAY_MS);
      const weekend = created.getUTCDay() === 0 || created.getUTCDay() === 6;
      const night = created.getUTCHours() < 7 || created.getUTCHours() > 19;
      if (random() < (weekend ? 0.6 : 1) * (night ? 0.5 : 1)) break;
    }
    const started = new Date(created.getTime() + 1_000 + random() * 4_000);
    const completed = new Date(started.getTime() + 2_000 + random() * 30_000);
    const confidence = Math.round(random() * 1000) / 1000;
    const description = `Bench target #${i}`;
    const steps =
      analysisType === 'quick_scan'
        ? ['fetching_material', 'reading_material', 'assessing']
        : [
            'fetching_material',
            'reading_material',
            'cross_referencing',
            'analyst_work',
            'assessing',
          ];
    rows.push({
      id: typeid('anal').toUUID(),
      organization_id: organizationUuid,
      mode: 'live',
      target_type: 'location',
      analysis_type: analysisType,
      priority: 'medium',
      description,
      description_key: description.toLowerCase(),
      reference_material: { photos: [], documents: [], coordinates: { latitude, longitude } },
      latitude,
      longitude,
      request_fingerprint: randomBytes(32).toString('hex'),
      material: [],
      earlier_work: [],
      status: 'completed',
      steps_done: steps.length,
      steps,
      engine: 'simulated',
      engine_version: 'bench',
      engine_seed: randomBytes(32).toString('hex'),
      // The engine's results shape (AnalysisResultsData), at about its size.
      results: {
        summary: `Assessment of ${description}: ${descriptors.size} descriptors with majority support.`,
        key_findings: [
          'No reference material was submitted.',
          'Earlier work within 1 km: none that is independent of this request.',
          `The analysts agreed beyond chance on ${descriptors.size} terms.`,
        ],
        confidence_score: confidence,
        risk_assessment: { level: 'medium', factors: ['missing_material', 'prior_only_evidence'] },
        recommendations: ['Submit photos or documents of the target to raise the confidence.'],
        descriptors: [...descriptors],
      },
      score_details: { material: null, analystAgreement: 0.4, judging: null },
      confidence_score: confidence,
      evidence: 'prior',
      failure_reason: null,
      failure_message: null,
      event_sequence: steps.length + 1,
      created_at: created.toISOString(),
      updated_at: completed.toISOString(),
      started_at: started.toISOString(),
      completed_at: completed.toISOString(),
      estimated_completion: completed.toISOString(),
      batch_id: null,
    });
  }
  return rows;
}

/** Inserts the rows with plain SQL, INSERT_BATCH at a time, then ANALYZE. */
async function seed(db, rows) {
  const columns = Object.keys(rows[0]);
  const insert = `INSERT INTO analyses (${columns.join(', ')})
    SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::analyses, $1::json)`;
  for (let i = 0; i < rows.length; i += INSERT_BATCH)
    await db.query(insert, [JSON.stringify(rows.slice(i, i + INSERT_BATCH))]);
  await db.query('ANALYZE analyses');
}

async function post(url, headers) {
  const started = performance.now();
  let response;
  let text;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: BODY,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    text = await response.text();
  } catch (error) {
    throw new Error(`POST ${url} failed (deadline ${REQUEST_TIMEOUT_MS / 1000} s)`, {
      cause: error,
    });
  }
  const ms = performance.now() - started;
  if (response.status !== 200)
    throw new Error(`POST ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { ms, text };
}

export async function patternPhase({
  apiBase,
  operatorHeaders,
  db,
  root,
  items,
  requests,
  warmup,
  log,
  partial = {},
}) {
  const created = await fetch(`${apiBase}/v2/enterprise/organizations`, {
    method: 'POST',
    headers: { ...operatorHeaders, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Pattern recognition at 10,000 analyses', ...BENCH_LIMITS }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch((error) => {
    throw new Error('pattern phase: creating its organisation failed', { cause: error });
  });
  const text = await created.text();
  if (created.status !== 201)
    throw new Error(`pattern phase: organisation: HTTP ${created.status} ${text.slice(0, 300)}`);
  const organization = JSON.parse(text);
  assertUnthrottled(organization, `pattern phase: organisation ${organization.id}`);
  const organizationUuid = TypeID.fromString(organization.id, 'org').toUUID();
  Object.assign(partial, {
    organization: organization.id,
    items,
    requests,
    warmup,
    targetP99Ms: PATTERN_P99_TARGET_MS,
  });

  log(
    `pattern phase: seeding ${items.toLocaleString('en')} completed analyses into ${organization.id} …`,
  );
  const { DESCRIPTOR_TERMS } = await import(
    pathToFileURL(join(root, 'dist/libs/engines/src/descriptor-vocabulary.js')).href
  );
  const seededAt = performance.now();
  await seed(db, patternRows(organizationUuid, items, DESCRIPTOR_TERMS));
  partial.seedSeconds = Math.round((performance.now() - seededAt) / 100) / 10;

  const url = `${apiBase}/v2/analysis/pattern-recognition`;
  const headers = { 'x-api-key': organization.admin_api_key, 'content-type': 'application/json' };
  log(
    `pattern phase: seeded in ${partial.seedSeconds} s; ${warmup} untimed, then ${requests} timed requests, one at a time …`,
  );
  const latencies = [];
  for (let i = 0; i < warmup + requests; i++) {
    const { ms, text: answer } = await post(url, headers);
    if (i === 0) {
      const body = JSON.parse(answer);
      partial.answer = {
        bytes: Buffer.byteLength(answer),
        itemCount: body.item_count,
        clusters: body.spatial_clusters.clusters.length,
        significantClusters: body.spatial_clusters.clusters.filter((c) => c.significant).length,
        nullLargestMedian: body.spatial_clusters.null_largest_median,
        significantTerms: body.descriptors.terms.filter((t) => t.significant).length,
        timeMethods: [body.time_patterns.weekday.method, body.time_patterns.hour.method],
      };
      if (body.item_count !== items)
        throw new Error(`pattern phase: the answer covers ${body.item_count} items, not ${items}`);
    }
    if (i >= warmup) latencies.push(ms);
  }
  latencies.sort((a, b) => a - b);
  const at = (p) =>
    latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  const r2 = (x) => Math.round(x * 100) / 100;
  partial.latencyMs = {
    p50: r2(at(50)),
    p95: r2(at(95)),
    p99: r2(at(99)),
    max: r2(latencies.at(-1)),
    min: r2(latencies[0]),
  };
  partial.met = at(99) < PATTERN_P99_TARGET_MS;

  log("pattern phase: where the time goes (the service's steps one by one) …");
  partial.breakdown = await patternBreakdown({ db, root, organizationUuid, repetitions: 5 });
  return partial;
}

export function patternLines(r) {
  const lines = [];
  if (r.items)
    lines.push(
      `POST /v2/analysis/pattern-recognition {filter: {kinds: ['analysis']}} on ${r.items.toLocaleString('en')} completed analyses (${r.organization}; ${r.requests} sequential requests after ${r.warmup} untimed; target p99 < ${r.targetP99Ms} ms):`,
    );
  if (r.answer)
    lines.push(
      `  answer: ${r.answer.itemCount.toLocaleString('en')} items, ${r.answer.clusters} clusters (${r.answer.significantClusters} significant; null's largest median ${r.answer.nullLargestMedian}), ${r.answer.significantTerms} significant terms, time tests ${r.answer.timeMethods.join('/')}; ${r.answer.bytes.toLocaleString('en')} bytes`,
    );
  if (r.latencyMs) {
    const l = r.latencyMs;
    lines.push(
      `  latency: p50 ${l.p50.toFixed(1)} ms, p95 ${l.p95.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms${Math.ceil(0.99 * r.requests) === r.requests ? ` (= the slowest of ${r.requests})` : `, max ${l.max.toFixed(1)} ms`}, min ${l.min.toFixed(1)} ms — target ${r.met ? 'met' : 'NOT MET'}`,
    );
  }
  if (r.breakdown) lines.push(...breakdownLines(r.breakdown, r.latencyMs?.p50 ?? null));
  return lines;
}
