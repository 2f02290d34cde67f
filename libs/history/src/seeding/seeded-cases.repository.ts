import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import { Sql, type Transaction } from '#database';

/** What one chunk of a seeded history draws from (`npm run db:seed-history`). */
export interface HistorySeedChunk {
  /** Case numbers `from + 1` .. `to`, of a run whose last number is `last`. */
  from: number;
  to: number;
  last: number;
  /** setseed's value for the chunk (-1..1), so case n has the same content in every run. */
  seed: number;
  /** Words in rank order (the most frequent first). */
  nouns: readonly string[];
  adjectives: readonly string[];
  descriptionWords: readonly string[];
  descriptors: readonly string[];
  /** The cities cases gather around, as parallel arrays; lowerBounds are the cumulative shares. */
  cities: {
    latitudes: readonly number[];
    longitudes: readonly number[];
    sigmasKm: readonly number[];
    lowerBounds: readonly number[];
  };
}

/**
 * Scale-test histories in `history_cases` (`npm run db:seed-history`,
 * apps/cli/src/seeded-history.ts): generated cases, chunk by chunk, then the
 * table's statistics refreshed once.
 */
@Injectable()
export class SeededCasesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * One chunk of a scale-test history (`npm run db:seed-history`): cases
   * numbered `from + 1` .. `to` as imported history, source_type `import`,
   * external_id `seed-<n>`, by one INSERT … SELECT FROM generate_series. A
   * case already there (the same tenant and external id) is left as it is
   * (ON CONFLICT DO NOTHING), so seeding again adds only what is missing.
   * The chunk starts from its own setseed, so case n has the same content in
   * every run (its id, from history_case_id(), and its date, which spreads
   * the run's cases over the years up to now, differ). Returns how many
   * cases it inserted.
   */
  async seed(tx: Transaction, tenant: Tenant, chunk: HistorySeedChunk): Promise<number> {
    await tx.query('SELECT setseed($1)', [chunk.seed]);
    const { rowCount } = await tx.query(SEED_CASES, [
      tenant.organizationId,
      tenant.mode,
      chunk.from,
      chunk.to,
      chunk.last,
      chunk.nouns,
      chunk.adjectives,
      chunk.descriptionWords,
      chunk.descriptors,
      chunk.cities.latitudes,
      chunk.cities.longitudes,
      chunk.cities.sigmasKm,
      chunk.cities.lowerBounds,
    ]);
    return rowCount ?? 0;
  }

  /** Refreshes the table's statistics and visibility map after a bulk load (seeding). */
  async vacuumAcrossTenants(): Promise<void> {
    await this.sql.query('VACUUM ANALYZE history_cases');
  }
}

/** The span a seeded history's dates cover, ending now. */
const SEED_YEARS = 10;

/** Shares of the seeded cases (the rest of each draw falls to the last option). */
const SEED_SHARES = {
  located: 0.9,
  completed: 0.95,
  /** Of completed cases: about 20 % of all cases. */
  verified: 0.21,
  classified: 0.03,
};

/** A Zipf-like draw from a text[] (rank k with probability ≈ ln((k+1)/k) / ln(n+1)). */
const zipf = (array: string) =>
  `(${array})[least(cardinality(${array}), floor(exp(random() * ln(cardinality(${array}) + 1)))::int)]`;

/** One of the options, uniformly. */
const oneOf = (...options: string[]) =>
  `(ARRAY[${options.map((o) => `'${o}'`).join(', ')}])[1 + floor(random() * ${options.length})::int]`;

/** A standard normal draw pair's radius (Box–Muller); the angle comes from its own random(). */
const GAUSS_RADIUS = 'sqrt(-2 * ln(1 - random()))';

/** A longitude brought back into [-180, 180). */
const wrapLongitude = (x: string) => `(${x}) - 360 * floor(((${x}) + 180) / 360)`;

/**
 * $1 organisation, $2 mode, $3/$4 the numbers (exclusive/inclusive) of this
 * chunk, $5 the run's last number (dates grow with n, ten years up to now, so
 * the table is as correlated with time as one filled over the years), $6
 * nouns, $7 adjectives, $8 description words, $9 descriptor terms (each in
 * rank order), $10–$13 the cities: latitude, longitude, σ (km), cumulative
 * share.
 *
 * Types: 40 % remote viewing, 25 % dowsing, 25 % analysis, 10 % automatic
 * writing, each with its subtype, modality and a target worded as its kind
 * of work words one (a place near a place, a question, a photograph, a
 * message); descriptions of 3–8 "adjective noun word" phrases; 2–6
 * descriptors drawn from the engines' controlled list (1–6 distinct).
 * 90 % are located around a city (Gaussian), 95 %
 * completed, about 20 % verified (of those 30 % hits, 30 % partial, 40 %
 * misses; the true place 0.3, 3 or 30 km (σ) from the case's), 3 %
 * classified.
 *
 * No ORDER BY: generate_series already yields the cases in order, and a sort
 * would make PostgreSQL draw the select list's own random() calls (analysts,
 * descriptors, description, …) after every row's draws of the CTEs, so case
 * n's content would depend on how many cases the chunk holds, and a second
 * run with a larger --count would add cases unlike those of one run.
 * Without it each row is drawn whole before the next.
 */
const SEED_CASES = `
  WITH draws AS (
    SELECT n, random() AS kind, random() AS status_draw, random() AS verified_draw,
           random() AS classified_draw, random() AS located_draw, random() AS verdict_draw,
           width_bucket(random(), $13::float8[]) AS city,
           ${GAUSS_RADIUS} AS radius, 2 * pi() * random() AS angle,
           ${GAUSS_RADIUS} AS true_radius, 2 * pi() * random() AS true_angle,
           ${zipf('$7::text[]')} AS adjective, ${zipf('$6::text[]')} AS noun,
           ${zipf('$6::text[]')} AS place, ${zipf('$7::text[]')} AS other_adjective,
           ${zipf('$6::text[]')} AS other_noun,
           3 + floor(random() * 6)::int AS phrases, 2 + floor(random() * 5)::int AS descriptor_count,
           1 + floor(random() * 3)::int AS analyst_count,
           now() - interval '${SEED_YEARS * 365} days' * (1 - (n - random()) / $5::int) AS date
      FROM generate_series($3::int + 1, $4::int) AS n
  ), typed AS (
    SELECT d.*,
           CASE WHEN kind < 0.40 THEN 'remote_viewing' WHEN kind < 0.65 THEN 'dowsing'
                WHEN kind < 0.90 THEN 'analysis' ELSE 'automatic_writing' END AS type,
           CASE WHEN status_draw < ${SEED_SHARES.completed} THEN 'completed' ELSE 'failed' END AS work_status,
           CASE WHEN located_draw < ${SEED_SHARES.located} THEN ($10::float8[])[city] END AS city_latitude,
           CASE WHEN located_draw < ${SEED_SHARES.located} THEN ($11::float8[])[city] END AS city_longitude,
           ($12::float8[])[city] AS sigma_km
      FROM draws d
  ), placed AS (
    SELECT t.*,
           -- greatest and least skip nulls: an unlocated case must stay null, not become a pole
           CASE WHEN city_latitude IS NOT NULL THEN
             greatest(-90, least(90, city_latitude + sigma_km / 111.32 * radius * sin(angle))) END AS latitude,
           ${wrapLongitude('city_longitude + sigma_km / (111.32 * cos(radians(city_latitude))) * radius * cos(angle)')} AS longitude,
           CASE WHEN work_status = 'completed' AND verified_draw < ${SEED_SHARES.verified}
                THEN CASE WHEN verdict_draw < 0.3 THEN 'hit' WHEN verdict_draw < 0.6 THEN 'partial' ELSE 'miss' END
           END AS verdict,
           CASE type WHEN 'dowsing' THEN ${oneOf('location', 'location', 'information', 'yes_no')}
                     WHEN 'analysis' THEN ${oneOf('comprehensive', 'quick_scan', 'deep_dive')}
                     ELSE ${oneOf('visual', 'kinesthetic', 'auditory')} END AS subtype
      FROM typed t
  ), outcomes AS (
    SELECT p.*,
           CASE verdict WHEN 'hit' THEN 0.3 WHEN 'partial' THEN 3 ELSE 30 END AS true_sigma_km
      FROM placed p
  )
  INSERT INTO history_cases (organization_id, mode, id, source_type, external_id, type, subtype,
         work_status, classified, date, target, client, analysts, duration_minutes, modality,
         phases, descriptors, description, latitude, longitude, confidence_score, chance_baseline,
         verdict, outcome, location_found, true_latitude, true_longitude, verification,
         independent_verification, accuracy_confirmed, verified_by, verified_at)
  SELECT $1::uuid, $2::text, history_case_id(), 'import', 'seed-' || n, type, subtype,
         work_status, classified_draw < ${SEED_SHARES.classified}, date,
         CASE type
           WHEN 'remote_viewing' THEN initcap(adjective) || ' ' || noun || ' near the ' || place
           WHEN 'dowsing' THEN 'Where is the ' || adjective || ' ' || noun || '?'
           WHEN 'analysis' THEN 'Photograph of the ' || adjective || ' ' || noun
           ELSE 'Message about the ' || adjective || ' ' || noun || ' by the ' || place
         END,
         CASE WHEN random() < 0.7 THEN 'Client ' || (1 + floor(random() * 40)::int) END,
         ARRAY(SELECT 'analyst_' || lpad((1 + floor(random() * 60)::int)::text, 3, '0')
                 FROM generate_series(1, o.analyst_count)),
         10 + floor(random() * 110)::int,
         CASE type WHEN 'dowsing' THEN ${oneOf('radar', 'pendulum', 'divining_rod')} ELSE subtype END,
         CASE work_status WHEN 'completed' THEN ARRAY['data_collection', 'analysis', 'validation']
                          ELSE ARRAY['data_collection'] END,
         ARRAY(SELECT DISTINCT ${zipf('$9::text[]')} FROM generate_series(1, o.descriptor_count)),
         CASE work_status
           WHEN 'completed' THEN (SELECT string_agg(${zipf('$7::text[]')} || ' ' || ${zipf('$6::text[]')}
                                                     || ' ' || ${zipf('$8::text[]')}, ', ')
                                    FROM generate_series(1, o.phrases))
           ELSE 'Failed: ' || ${oneOf('engine_failure', 'timeout', 'analyst_unavailable')}
         END,
         latitude, longitude,
         CASE WHEN work_status = 'completed' THEN round(((random() + random()) / 2)::numeric, 4)::float8 END,
         CASE WHEN type IN ('remote_viewing', 'automatic_writing') THEN 0.25
              WHEN subtype = 'yes_no' THEN 0.5 END,
         verdict,
         CASE verdict
           WHEN 'hit' THEN 'Confirmed: the ' || adjective || ' ' || noun || ' found as described'
           WHEN 'partial' THEN 'Partly right: the ' || noun || ' found, not the ' || other_noun
           WHEN 'miss' THEN 'Not found: the target was the ' || other_adjective || ' ' || other_noun
         END,
         CASE verdict WHEN 'hit' THEN true WHEN 'partial' THEN random() < 0.5 WHEN 'miss' THEN false END,
         CASE WHEN verdict IS NOT NULL AND latitude IS NOT NULL THEN
           greatest(-90, least(90, latitude + true_sigma_km / 111.32 * true_radius * sin(true_angle))) END,
         CASE WHEN verdict IS NOT NULL AND latitude IS NOT NULL THEN
           ${wrapLongitude('longitude + true_sigma_km / (111.32 * cos(radians(latitude))) * true_radius * cos(true_angle)')} END,
         CASE WHEN verdict IS NOT NULL THEN
           ${oneOf('Site visit', 'Photograph of the site', 'Client confirmation', 'Public record', 'Independent judge')} END,
         verdict IS NOT NULL AND random() < 0.4,
         coalesce(verdict = 'hit', false) AND random() < 0.8,
         CASE WHEN verdict IS NOT NULL THEN 'verifier_' || lpad((1 + floor(random() * 25)::int)::text, 2, '0') END,
         CASE WHEN verdict IS NOT NULL THEN least(now(), date + random() * interval '90 days') END
    FROM outcomes o
  ON CONFLICT (organization_id, mode, external_id) WHERE external_id IS NOT NULL DO NOTHING`;
