import type { Tenant } from '#common';
import type { Sql } from '#database';
import { DESCRIPTOR_TERMS } from '#engines';
import { SeededCasesRepository } from '#history';
import {
  SEED_ADJECTIVES,
  SEED_CITIES,
  SEED_DESCRIPTION_WORDS,
  SEED_NOUNS,
} from './seeded-history-vocabulary.js';

/** Rows per INSERT: each statement's index work (five indexes, two of them GIN) stays bounded. */
export const HISTORY_SEED_CHUNK = 50_000;

export type HistorySeedTenant = Tenant;

export interface HistorySeedProgress {
  /** Case numbers done so far (1..count). */
  done: number;
  /** Of those, the rows this run inserted (the others were already there). */
  inserted: number;
}

/**
 * Cases numbered `from + 1` .. `to` as imported history (external_id
 * `seed-<n>`), one SeededCasesRepository#seed statement, in its own
 * transaction, per HISTORY_SEED_CHUNK: what is already there is left as it
 * is, so running the seed again adds only what is missing, and each chunk
 * starts from its own setseed, so case n has the same content in every run.
 * Nothing is ANALYZEd here: the caller does that once at the end
 * (`analyzeSeededHistory`).
 */
export async function seedHistoryCases(
  sql: Sql,
  tenant: HistorySeedTenant,
  range: { from?: number; to: number },
  onProgress?: (progress: HistorySeedProgress) => void,
): Promise<HistorySeedProgress> {
  const cases = new SeededCasesRepository(sql);
  const from = range.from ?? 0;
  const progress = { done: from, inserted: 0 };
  const vocabulary = {
    nouns: SEED_NOUNS,
    adjectives: SEED_ADJECTIVES,
    descriptionWords: [...SEED_NOUNS, ...SEED_ADJECTIVES, ...SEED_DESCRIPTION_WORDS],
    descriptors: DESCRIPTOR_TERMS,
    cities: cityArrays(),
  };
  for (let start = from; start < range.to; start += HISTORY_SEED_CHUNK) {
    const end = Math.min(range.to, start + HISTORY_SEED_CHUNK);
    const inserted = await sql.transaction((tx) =>
      cases.seed(tx, tenant, {
        ...vocabulary,
        from: start,
        to: end,
        last: range.to,
        // setseed takes -1..1; each chunk of the numbering gets its own, the same in every run.
        seed: (((start / HISTORY_SEED_CHUNK) % 1999) - 999) / 1000,
      }),
    );
    progress.done = end;
    progress.inserted += inserted;
    onProgress?.({ ...progress });
  }
  return progress;
}

/** VACUUM ANALYZE of the cases after seeding: statistics and visibility map for the planner. */
export async function analyzeSeededHistory(sql: Sql): Promise<void> {
  await new SeededCasesRepository(sql).vacuumAcrossTenants();
}

/** SEED_CITIES as parallel arrays; lowerBounds are the cumulative shares (width_bucket's). */
function cityArrays() {
  const total = SEED_CITIES.reduce((sum, city) => sum + city[3], 0);
  let low = 0;
  const lowerBounds: number[] = [];
  for (const city of SEED_CITIES) {
    lowerBounds.push(low);
    low += city[3] / total;
  }
  return {
    latitudes: SEED_CITIES.map((city) => city[1]),
    longitudes: SEED_CITIES.map((city) => city[2]),
    sigmasKm: SEED_CITIES.map((city) => city[4]),
    lowerBounds,
  };
}
