import { createHash, randomBytes, randomInt } from 'node:crypto';

/** A commitment to a target made when the work is tasked, and the nonce that opens it. */
export interface TargetCommitment {
  /** Lowercase hex SHA-256 of the UTF-8 string `{nonce}:{target}`. */
  commitment: string;
  /** 32 random hex digits; revealed with the target once the work is done. */
  nonce: string;
}

/**
 * Commits to a target before anyone works on it (docs/analysts.md). The
 * nonce keeps a short or guessable target from being found by hashing
 * candidates; publishing the target and nonce afterwards lets anyone check
 * the target was not changed once the work was in.
 */
export function commitTarget(target: string): TargetCommitment {
  const nonce = randomBytes(16).toString('hex');
  return { nonce, commitment: targetCommitment(nonce, target) };
}

export function targetCommitment(nonce: string, target: string): string {
  return createHash('sha256').update(`${nonce}:${target}`, 'utf8').digest('hex');
}

/**
 * A target reference number as the field writes them (`4821-7305`): random,
 * never derived from the work's id or its target, so it tells the analyst
 * nothing. 10^8 values; unique per organisation is not needed, only per work.
 */
export function targetReferenceNumber(): string {
  const half = () => String(randomInt(0, 10_000)).padStart(4, '0');
  return `${half()}-${half()}`;
}
