import { currentRequestOrigin, newUuid, parsePublicId, type Principal, type Tenant } from '#common';
import type { Queryable } from '#database';
import { AuditEventsRepository } from './audit-events.repository.js';
import type { AuditAction, AuditActor, AuditChanges, AuditTarget } from './audit-actions.js';

/** One security-relevant change, as its maker describes it. */
export interface AuditEntry {
  action: AuditAction;
  /** Who acted; a Principal is read as its person, API key or OAuth client. */
  actor: AuditActor | Principal;
  target: AuditTarget;
  /** Before and after of the changed fields (`auditChanges` computes them). */
  changes?: AuditChanges | null;
  /** Facts of the action that are not field changes (an import's counts, a sign-in's method). */
  details?: Record<string, unknown> | null;
}

/** A user agent is kept to this many characters: enough to tell clients apart. */
const MAX_USER_AGENT_LENGTH = 512;

/** What a secret's value reads as in a record: that it changed is kept, never what it was. */
export const REDACTED = '[redacted]';

/** Field names whose values are secrets, whichever record they appear in. */
const SECRET_FIELD =
  /(secret|password|passphrase|private_?key|_hash$|hash_|^token$|_token$|^key$)/i;
/** Values that are credentials of this service whatever their field is called. */
const SECRET_VALUE = /^(sk|whsec|sas_scim)_[A-Za-z0-9_-]{16,}$/;

/**
 * The one writer of the audit log. Every change it records is written in the
 * transaction that makes it (`on` is that transaction), so a change and its
 * record commit or roll back together. The request it belongs to — its id,
 * the client's address and user agent — comes from the request being served
 * (`withRequestOrigin`), never from the caller, so no route can forget it;
 * secrets are stripped here, so no caller can leak one.
 */
export class AuditLog {
  static async record(on: Queryable, tenant: Tenant, entry: AuditEntry): Promise<void> {
    const origin = currentRequestOrigin();
    const actor = isActor(entry.actor) ? entry.actor : actorOf(entry.actor);
    await AuditEventsRepository.insert(on, tenant, {
      id: newUuid(),
      action: entry.action,
      actorType: actor.type,
      actorId: actor.id,
      targetType: entry.target.type,
      targetId: entry.target.id,
      ip: origin?.ip ?? null,
      userAgent: origin?.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null,
      requestId: origin?.requestId ?? null,
      changes: jsonOrNull(entry.changes),
      details: jsonOrNull(entry.details),
    });
  }
}

/** The actor a credential stands for: the person whose token it is, else the API key or OAuth client. */
export function actorOf(principal: Principal): AuditActor {
  if (principal.credential === 'api_key') return { type: 'api_key', id: principal.subject };
  if (parsePublicId('user', principal.subject) !== null) {
    return { type: 'person', id: principal.subject };
  }
  return { type: 'client', id: principal.subject };
}

function isActor(actor: AuditActor | Principal): actor is AuditActor {
  return 'type' in actor;
}

/**
 * The fields of `after` whose values differ from `before`'s, each with both
 * values; fields named in neither are left out. Values compare by their JSON.
 */
export function auditChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): AuditChanges | null {
  const changes: AuditChanges = {};
  for (const field of Object.keys(after)) {
    const was = before[field] ?? null;
    const is = after[field] ?? null;
    if (JSON.stringify(was) !== JSON.stringify(is)) changes[field] = { before: was, after: is };
  }
  return Object.keys(changes).length === 0 ? null : changes;
}

function jsonOrNull(value: Record<string, unknown> | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return JSON.stringify(redacted(value));
}

/** A copy of `value` with every secret field's value, and every secret-looking value, replaced by REDACTED. */
export function redacted(value: unknown, field = ''): unknown {
  if (field !== '' && SECRET_FIELD.test(field)) return value === null ? null : REDACTED;
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value;
  if (Array.isArray(value)) return value.map((item) => redacted(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, redactedEntry(key, inner)]),
    );
  }
  return value;
}

/** Inside a change (`{before, after}`), the field's own name decides. */
function redactedEntry(key: string, inner: unknown): unknown {
  if (isChange(inner) && SECRET_FIELD.test(key)) {
    return {
      before: inner.before === null ? null : REDACTED,
      after: inner.after === null ? null : REDACTED,
    };
  }
  return redacted(inner, key);
}

function isChange(value: unknown): value is { before: unknown; after: unknown } {
  return (
    value !== null &&
    typeof value === 'object' &&
    Object.keys(value).length === 2 &&
    'before' in value &&
    'after' in value
  );
}
