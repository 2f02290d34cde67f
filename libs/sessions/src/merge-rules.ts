import type { Modality, PrivacyLevel } from '#common';
import type { SessionEntity } from './entities/session.entity.js';
import type { SessionEngine } from '#engines';

/** How many sessions one merge may combine. */
export const MAX_MERGED_SESSIONS = 20;

/** Strictest first: a merge is as private as its most private source. */
const PRIVACY_ORDER: readonly PrivacyLevel[] = ['classified', 'private', 'public'];

type Source = Pick<
  SessionEntity,
  | 'status'
  | 'mergedFrom'
  | 'type'
  | 'target'
  | 'engine'
  | 'engineVersion'
  | 'modality'
  | 'durationMinutes'
  | 'privacyLevel'
  | 'analystCount'
>;

/**
 * Why a source cannot be merged with the first one, or null when it can:
 * it must be completed, not itself a merge, of the same type and target, and
 * produced by an engine that can merge, at that engine's current version
 * (its work is re-derived, not copied).
 */
export function mergeRefusal(source: Source, first: Source, engine: SessionEngine): string | null {
  if (source.status !== 'completed') return `it is ${source.status}, not completed`;
  if (source.mergedFrom !== null) {
    return 'it is itself a merge; merge its sources with the others instead';
  }
  if (source.type !== first.type) return `its type ${source.type} is not ${first.type}`;
  if (source.target !== first.target) return 'its target differs from the first session';
  if (!engine.merge) return `its engine ${engine.name} cannot merge work`;
  if (source.engine !== engine.name || source.engineVersion !== engine.version) {
    return (
      `it was produced by engine ${source.engine} ${source.engineVersion ?? ''}`.trimEnd() +
      `, and only ${engine.version} work can be re-derived`
    );
  }
  return null;
}

/**
 * The settings of the merged session: the strictest privacy level of its
 * sources, their modality if they share one, the longest duration, and the
 * sum of their analysts.
 */
export function mergedSettings(sources: readonly [Source, ...Source[]]): {
  modality: Modality | null;
  durationMinutes: number;
  privacyLevel: PrivacyLevel;
  analystCount: number;
} {
  const [first] = sources;
  return {
    modality: sources.every((s) => s.modality === first.modality) ? first.modality : null,
    durationMinutes: Math.max(...sources.map((s) => s.durationMinutes)),
    privacyLevel: PRIVACY_ORDER.find((level) => sources.some((s) => s.privacyLevel === level))!,
    analystCount: sources.reduce((sum, s) => sum + s.analystCount, 0),
  };
}
