import { MODALITIES, type SessionType } from '#common';
import { SESSION_DEFAULT_BASELINE } from '#engines';
import type { VerifiedRecordQuery } from '#history';

/**
 * The verified cases a session of this type rests on (docs/statistics.md,
 * "Verified outcomes"): the organisation's sessions of the type, whatever
 * their modality, or none. The modalities are named so that a `dowsing`
 * session never counts dowsing queries, whose cases share the type with the
 * query types as subtypes. Sessions' cases record no baseline: p0 = 1/k.
 */
export function verifiedSessionsOf(type: SessionType): VerifiedRecordQuery {
  return { type, subtypes: [...MODALITIES, null], defaultP0: SESSION_DEFAULT_BASELINE };
}
