import type { SessionEntity } from './entities/session.entity.js';

/**
 * The target as the session may be shown: a `classified` session's target
 * never leaves the sessions table — not in reads, lists, events, webhooks,
 * replays or logs — so it shows as null; any other session's as created.
 */
export function disclosedTarget(
  session: Pick<SessionEntity, 'target' | 'privacyLevel'>,
): string | null {
  return session.privacyLevel === 'classified' ? null : session.target;
}
