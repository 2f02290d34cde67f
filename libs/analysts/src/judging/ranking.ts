import { AppError, parsePublicId, toPublicId } from '#common';

/**
 * A judge's ranking, best first, as stored candidate ids: it must name every
 * candidate of the task exactly once. Anything else is a 400 naming
 * `ranking` that says what is missing, repeated or unknown.
 */
export function parseRanking(
  ranking: readonly string[],
  candidateIds: readonly string[],
): string[] {
  const known = new Set(candidateIds);
  const seen = new Set<string>();
  const unknown: string[] = [];
  const repeated: string[] = [];
  const ids: string[] = [];
  for (const publicId of ranking) {
    const id = typeof publicId === 'string' ? parsePublicId('candidate', publicId) : null;
    if (id === null || !known.has(id)) {
      unknown.push(String(publicId));
      continue;
    }
    if (seen.has(id)) {
      repeated.push(publicId);
      continue;
    }
    seen.add(id);
    ids.push(id);
  }
  const missing = candidateIds
    .filter((id) => !seen.has(id))
    .map((id) => toPublicId('candidate', id));
  const problems = [
    unknown.length > 0 ? `not candidates of this task: ${unknown.join(', ')}` : null,
    repeated.length > 0 ? `named more than once: ${repeated.join(', ')}` : null,
    missing.length > 0 ? `missing: ${missing.join(', ')}` : null,
  ].filter((p): p is string => p !== null);
  if (problems.length > 0) {
    throw AppError.invalid(
      'ranking',
      `must list each of the ${candidateIds.length} candidate ids exactly once, best first; ${problems.join('; ')}`,
    );
  }
  return ids;
}
