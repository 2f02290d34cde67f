import { Injectable } from '@nestjs/common';
import type { Tenant } from '#common';
import type { GeoPoint } from '#statistics';
import type { HistoryCase } from '../history-case.js';
import {
  similarityOf,
  type SimilarityComponents,
  type SimilarityProbe,
} from './case-similarity.js';
import { SimilarCasesRepository } from './similar-cases.repository.js';

export interface SimilarCase {
  record: HistoryCase;
  similarity: number;
  components: SimilarityComponents;
  distanceKm: number | null;
}

/** Candidates each index contributes before they are scored. */
export const CANDIDATES_PER_INDEX = 100;
/** The newest cases sharing a word with the probe, of which the most alike by trigrams are candidates. */
export const WORD_SHARING_CASES = 2000;

/**
 * Similar cases: candidates from index lookups (the newest cases sharing a
 * word or descriptor with the probe, the targets most alike by trigrams
 * among the newest WORD_SHARING_CASES of those, and the nearest cases;
 * SimilarCasesRepository#similarCandidates), scored here. Trigram
 * candidates by pg_trgm's `%` on a trigram index were measured at 2–5 s on
 * a million cases: targets written alike ("Where is the …?") make a probe
 * similar to a quarter of them. Classified cases are never candidates.
 */
@Injectable()
export class SimilarCasesService {
  constructor(private readonly cases: SimilarCasesRepository) {}

  async find(tenant: Tenant, probe: SimilarityProbe, limit: number): Promise<SimilarCase[]> {
    const candidates = await this.cases.similarCandidates(tenant, probe, searchWords(probe), {
      perIndex: CANDIDATES_PER_INDEX,
      wordSharing: WORD_SHARING_CASES,
    });
    const probeSide = { descriptors: probe.descriptors, point: probe.point, date: probe.date };
    return candidates
      .map(({ record, textSimilarity }) => ({
        record,
        ...similarityOf(probeSide, sideOf(record), textSimilarity),
      }))
      .sort(
        (a, b) => b.similarity - a.similarity || b.record.date.getTime() - a.record.date.getTime(),
      )
      .slice(0, limit);
  }
}

/** A case as one side of a comparison: its location is the verified one when known. */
export function sideOf(record: HistoryCase) {
  return {
    descriptors: record.descriptors,
    point: locationOf(record),
    date: record.date,
  };
}

export function locationOf(record: HistoryCase): GeoPoint | null {
  if (record.trueLatitude !== null && record.trueLongitude !== null) {
    return { latitude: record.trueLatitude, longitude: record.trueLongitude };
  }
  if (record.latitude !== null && record.longitude !== null) {
    return { latitude: record.latitude, longitude: record.longitude };
  }
  return null;
}

/** The probe's words and descriptors as one OR query (web-search syntax; punctuation dropped). */
function searchWords(probe: SimilarityProbe): string | null {
  const words = [probe.text ?? '', ...probe.descriptors]
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 2 && word !== 'or');
  const distinct = [...new Set(words)].slice(0, 32);
  return distinct.length === 0 ? null : distinct.join(' OR ');
}
