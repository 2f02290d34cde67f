import { TypeID, typeid } from 'typeid-js';
import { v7 as uuidv7 } from 'uuid';

/**
 * Public identifiers: a type prefix, "_", and a UUIDv7 in TypeID's base32 form.
 * The database stores the UUID (16 bytes, time-ordered so B-tree inserts stay
 * at the right edge); the prefix is only ever added at the edge of the API.
 */
export const ID_PREFIXES = {
  session: 'sess',
  analysis: 'anal',
  dowsing: 'dowse',
  history: 'hist',
  event: 'evt',
  request: 'req',
  analyst: 'analyst',
  webhook: 'wh',
  webhookDelivery: 'dlv',
  webhookAttempt: 'atmpt',
  replay: 'rpl',
  systemNotice: 'ntc',
  auditEvent: 'audit',
  scimToken: 'scim',
  scimGroup: 'grp',
  sessionTemplate: 'tpl',
  apiKey: 'key',
  batch: 'batch',
  report: 'rpt',
  organization: 'org',
  oauthClient: 'cli',
  user: 'usr',
  ssoConnection: 'sso',
  assignment: 'asgmt',
  judgingTask: 'jdg',
  target: 'tgt',
  candidate: 'cand',
  sketch: 'skt',
  targetPhoto: 'photo',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

/** A new public id of the given kind, e.g. `sess_01jh…`. */
export function newId(kind: IdKind): string {
  return typeid(ID_PREFIXES[kind]).toString();
}

/**
 * A new UUIDv7 for a primary key whose public form is not needed yet (it is
 * derived when shown): a tenth of the cost of `newKey`, which also encodes it.
 */
export function newUuid(): string {
  return uuidv7();
}

/** A new UUIDv7 for a primary key, with its public form. */
export function newKey(kind: IdKind): { uuid: string; id: string } {
  const id = typeid(ID_PREFIXES[kind]);
  return { uuid: id.toUUID(), id: id.toString() };
}

/** The public form of a stored UUID. */
export function toPublicId(kind: IdKind, uuid: string): string {
  return toPrefixedId(ID_PREFIXES[kind], uuid);
}

/** As toPublicId, for a prefix of its own (a kind of work plugged into libs/work). */
export function toPrefixedId(prefix: string, uuid: string): string {
  return TypeID.fromUUID(prefix, uuid).toString();
}

/** The stored UUID behind a public id, or null when it is not a well-formed id of that kind. */
export function parsePublicId(kind: IdKind, value: string): string | null {
  return parsePrefixedId(ID_PREFIXES[kind], value);
}

/** As parsePublicId, for a prefix of its own (a kind of work plugged into libs/work). */
export function parsePrefixedId(prefix: string, value: string): string | null {
  if (value.length !== prefix.length + 27 || !value.startsWith(`${prefix}_`)) return null;
  try {
    return TypeID.fromString(value, prefix).toUUID();
  } catch {
    return null;
  }
}

/** Whether a string is a well-formed id of that kind (for echoing client-sent request ids). */
export function isPublicId(kind: IdKind, value: string): boolean {
  return parsePublicId(kind, value) !== null;
}
