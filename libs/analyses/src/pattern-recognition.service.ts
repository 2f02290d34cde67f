import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, toPublicId, type Tenant } from '#common';
import { DESCRIPTOR_TERMS } from '#engines';
import { SessionsService } from '#sessions';
import type { FinishedWork } from '#work';
import {
  chiSquareMonteCarloPValue,
  chiSquareUniformity,
  clusterNullSample,
  clusterPValues,
  dbscan,
  DEFAULT_CLUSTER_SEED,
  descriptorRecurrence,
  weekdayHourCounts,
  WEEKDAYS,
  type Correction,
  type GeoPoint,
} from '#statistics';
import { AnalysesRepository } from './analyses.repository.js';

/** Most finished items one request may look across. */
export const MAX_PATTERN_ITEMS = 10_000;
/** Adjusted p-values below this are called significant. */
export const SIGNIFICANCE_LEVEL = 0.05;
/** Items listed per spatial cluster (the cluster's size says how many there are). */
const CLUSTER_ITEMS_SHOWN = 20;
/**
 * Monte-Carlo replicates of the cluster null: 99 (smallest p 0.01) up to this
 * many located items; above it each replicate is a DBSCAN of as many points
 * (about 10 ms at 10,000), so 39 (smallest p 0.025) keep the request under a
 * second.
 */
const FULL_NULL_UP_TO = 2_000;
const FULL_NULL_REPLICATES = 99;
const LARGE_NULL_REPLICATES = 39;
/** Replicates drawn between yields to the event loop, so other requests are served meanwhile. */
const REPLICATES_PER_SLICE = 3;

export type PatternKind = 'session' | 'analysis';

export interface PatternRequest {
  /** Explicit public ids (`sess_…`, `anal_…`); with them the filter is not used. */
  ids?: string[] | undefined;
  kinds?: PatternKind[] | undefined;
  /** A session type or an analysis target type. */
  type?: string | undefined;
  dateFrom?: Date | undefined;
  dateTo?: Date | undefined;
  minSupport: number;
  clusterRadiusMeters: number;
  minClusterSize: number;
  correction: Correction;
}

interface Item extends FinishedWork {
  kind: PatternKind;
}

/**
 * Pattern recognition over a set of the organisation's finished work
 * (docs/statistics.md, "Pattern recognition"): recurring descriptors against
 * the chance of a uniform pick from the vocabulary (exact binomial, adjusted
 * for the number of terms), spatial clusters (DBSCAN with haversine distance,
 * each against the largest cluster uniformly scattered points form), and
 * weekday and hour concentration (chi-square; Monte Carlo when cells are
 * small). Synchronous: at most MAX_PATTERN_ITEMS items.
 */
@Injectable()
export class PatternRecognitionService {
  constructor(
    private readonly analyses: AnalysesRepository,
    private readonly sessions: SessionsService,
  ) {}

  async recognize(tenant: Tenant, request: PatternRequest) {
    const items = await this.items(tenant, request);
    const warnings: string[] = [];
    if (items.length === 0) warnings.push('No finished work matches: there is nothing to look at.');
    return {
      item_count: items.length,
      items_by_kind: {
        session: items.filter((item) => item.kind === 'session').length,
        analysis: items.filter((item) => item.kind === 'analysis').length,
      },
      descriptors: descriptorPatterns(items, request, warnings),
      spatial_clusters: await spatialPatterns(items, request, warnings),
      time_patterns: timePatterns(items, warnings),
      warnings,
    };
  }

  private async items(tenant: Tenant, request: PatternRequest): Promise<Item[]> {
    if (request.ids) return this.itemsById(tenant, request.ids);
    const kinds = request.kinds ?? ['session', 'analysis'];
    const selection = { type: request.type, from: request.dateFrom, to: request.dateTo };
    const limit = MAX_PATTERN_ITEMS + 1;
    const [sessions, analyses] = await Promise.all([
      kinds.includes('session') ? this.sessions.finishedWork(tenant, selection, limit) : [],
      kinds.includes('analysis') ? this.analyses.finishedWork(tenant, selection, limit) : [],
    ]);
    const items = [
      ...sessions.map((work): Item => ({ ...work, kind: 'session' })),
      ...analyses.map((work): Item => ({ ...work, kind: 'analysis' })),
    ];
    if (items.length > MAX_PATTERN_ITEMS) {
      throw AppError.invalid(
        'filter',
        `matches more than ${MAX_PATTERN_ITEMS.toLocaleString('en')} finished items; narrow it with kinds, type, date_from or date_to`,
      );
    }
    return items;
  }

  /** Every id must name a finished piece of the caller's work; the first that does not is named. */
  private async itemsById(tenant: Tenant, ids: readonly string[]): Promise<Item[]> {
    const uuids = { session: [] as string[], analysis: [] as string[] };
    const parsed = ids.map((id, i) => {
      const kind: PatternKind | null = id.startsWith('sess_')
        ? 'session'
        : id.startsWith('anal_')
          ? 'analysis'
          : null;
      const uuid = kind === null ? null : parsePublicId(kind, id);
      if (kind === null || uuid === null) {
        throw AppError.invalid(`items.${i}`, 'must be a session (sess_…) or analysis (anal_…) id');
      }
      uuids[kind].push(uuid);
      return { kind, uuid };
    });
    const [sessions, analyses] = await Promise.all([
      uuids.session.length === 0
        ? []
        : this.sessions.finishedWork(tenant, { ids: uuids.session }, uuids.session.length),
      uuids.analysis.length === 0
        ? []
        : this.analyses.finishedWork(tenant, { ids: uuids.analysis }, uuids.analysis.length),
    ]);
    const found = new Map<string, Item>([
      ...sessions.map((work): [string, Item] => [work.id, { ...work, kind: 'session' }]),
      ...analyses.map((work): [string, Item] => [work.id, { ...work, kind: 'analysis' }]),
    ]);
    const missing = parsed.findIndex(({ uuid }) => !found.has(uuid));
    if (missing >= 0) {
      throw AppError.invalid(
        `items.${missing}`,
        `${ids[missing]} is not a completed session or analysis of yours`,
      );
    }
    return [...found.values()];
  }
}

/**
 * Terms reported across items, each tested against a uniform pick from the
 * controlled vocabulary: an item listing m of the V terms has each with
 * chance m/V, so the base rate is the mean of m/V over the items that list
 * any. The family is the whole vocabulary.
 */
function descriptorPatterns(items: readonly Item[], request: PatternRequest, warnings: string[]) {
  const described = items.filter((item) => item.descriptors.length > 0);
  const vocabulary = DESCRIPTOR_TERMS.length;
  const baseline =
    described.length === 0
      ? 0
      : described.reduce(
          (sum, item) => sum + Math.min(1, item.descriptors.length / vocabulary),
          0,
        ) / described.length;
  if (described.length === 0) {
    warnings.push('No item lists descriptors (quick scans have none): no descriptor patterns.');
    return {
      n_items: 0,
      baseline_share: 0,
      correction: request.correction,
      min_support: request.minSupport,
      family_size: 0,
      terms: [],
    };
  }
  const distinctTerms = new Set(described.flatMap((item) => item.descriptors)).size;
  const recurrence = descriptorRecurrence(
    described.map((item) => item.descriptors),
    () => baseline,
    {
      minSupport: request.minSupport,
      correction: request.correction,
      familySize: Math.max(vocabulary, distinctTerms),
    },
  );
  return {
    n_items: recurrence.n_items,
    baseline_share: baseline,
    correction: recurrence.correction,
    min_support: recurrence.min_support,
    family_size: recurrence.family_size,
    terms: recurrence.terms.map((term) => ({
      ...term,
      significant: term.p_adjusted < SIGNIFICANCE_LEVEL,
    })),
  };
}

async function spatialPatterns(
  items: readonly Item[],
  request: PatternRequest,
  warnings: string[],
) {
  const located = items.filter(
    (item): item is Item & GeoPoint => item.latitude !== null && item.longitude !== null,
  );
  const base = {
    n_points: located.length,
    radius_meters: request.clusterRadiusMeters,
    min_cluster_size: request.minClusterSize,
  };
  if (located.length < request.minClusterSize) {
    warnings.push(
      `Only ${located.length} items have coordinates: no spatial cluster of ${request.minClusterSize} can form.`,
    );
    return {
      ...base,
      clusters: [],
      noise: located.length,
      replicates: 0,
      null_largest_median: null,
    };
  }
  const points = located.map(({ latitude, longitude }) => ({ latitude, longitude }));
  const found = dbscan(points, request.clusterRadiusMeters, request.minClusterSize);
  const significance = clusterPValues(
    found.clusters,
    await clusterNull(points, request.clusterRadiusMeters, request.minClusterSize),
  );
  return {
    ...base,
    noise: found.noise,
    replicates: significance.replicates,
    null_largest_median: significance.null_largest_median,
    clusters: found.clusters
      .map((cluster, i) => ({
        size: cluster.size,
        centroid: cluster.centroid,
        radius_meters: cluster.radius_meters,
        p_value: significance.p_values[i]!,
        significant: significance.p_values[i]! < SIGNIFICANCE_LEVEL,
        item_ids: cluster.members
          .slice(0, CLUSTER_ITEMS_SHOWN)
          .map((index) => toPublicId(located[index]!.kind, located[index]!.id)),
      }))
      .sort((a, b) => b.size - a.size || a.p_value - b.p_value),
  };
}

/**
 * The null sample of the clusters' test, drawn a few replicates at a time
 * (each slice with its own seed, so the whole stays deterministic) with the
 * event loop free between slices: a large request never holds up the API
 * process's other requests for the whole null.
 */
async function clusterNull(
  points: readonly GeoPoint[],
  epsMeters: number,
  minPoints: number,
): Promise<number[]> {
  const replicates =
    points.length <= FULL_NULL_UP_TO ? FULL_NULL_REPLICATES : LARGE_NULL_REPLICATES;
  const sample: number[] = [];
  for (let slice = 0; sample.length < replicates; slice += 1) {
    const size = Math.min(REPLICATES_PER_SLICE, replicates - sample.length);
    sample.push(
      ...clusterNullSample(points, epsMeters, minPoints, size, DEFAULT_CLUSTER_SEED + slice),
    );
    await yieldToEventLoop();
  }
  return sample;
}

function timePatterns(items: readonly Item[], warnings: string[]) {
  const counts = weekdayHourCounts(items.map((item) => new Date(item.createdAt)));
  const test = (cells: number[], labels: readonly string[], what: string) => {
    const result = chiSquareUniformity(cells);
    const small = result.small_expected && items.length > 0;
    if (small) {
      warnings.push(
        `Fewer than 5 items expected per ${what}: its p-value is a Monte Carlo estimate.`,
      );
    }
    const pValue = small ? chiSquareMonteCarloPValue(cells) : result.p_value;
    return {
      counts: cells,
      statistic: result.statistic,
      df: result.df,
      p_value: pValue,
      method: small ? 'monte_carlo' : 'chi_square',
      significant: items.length > 0 && pValue < SIGNIFICANCE_LEVEL,
      peak: items.length === 0 ? null : labels[cells.indexOf(Math.max(...cells))]!,
    };
  };
  return {
    time_zone: 'UTC',
    weekday: test(counts.weekday, WEEKDAYS, 'weekday'),
    hour: test(
      counts.hour,
      Array.from({ length: 24 }, (_, h) => String(h)),
      'hour',
    ),
  };
}
