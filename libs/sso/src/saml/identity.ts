import type { Profile } from '@node-saml/node-saml';
import { SamlSignInError } from './errors.js';

/** Who signed in, from a verified assertion. */
export interface SamlIdentity {
  nameId: string;
  email: string;
  name: string | null;
  groups: string[];
  assertionId: string;
  inResponseTo: string | null;
  notOnOrAfter: Date | null;
  attributes: Record<string, string[]>;
}

const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
];
const NAME_ATTRIBUTES = [
  'displayName',
  'name',
  'cn',
  'http://schemas.microsoft.com/identity/claims/displayname',
  'urn:oid:2.16.840.1.113730.3.1.241',
];
const GIVEN_NAME_ATTRIBUTES = [
  'givenName',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
  'urn:oid:2.5.4.42',
];
const SURNAME_ATTRIBUTES = [
  'sn',
  'surname',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
  'urn:oid:2.5.4.4',
];
const GROUP_ATTRIBUTES = [
  'groups',
  'memberOf',
  'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
];

function refuse(message: string): never {
  throw new SamlSignInError('invalid_response', message);
}

/** String values per attribute name; structured values (rare, e.g. nested NameIDs) are left out. */
export function attributesOf(profile: Profile): Record<string, string[]> {
  const raw = (profile.attributes ?? {}) as Record<string, unknown>;
  const attributes: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(raw)) {
    const values = (Array.isArray(value) ? value : [value]).filter(
      (v): v is string => typeof v === 'string',
    );
    if (values.length > 0) attributes[name] = values;
  }
  return attributes;
}

/** Values of the first of `names` present, compared without case (IdPs disagree on capitals). */
function firstValues(attributes: Record<string, string[]>, names: string[]): string[] {
  const byLowerName = new Map(Object.entries(attributes).map(([k, v]) => [k.toLowerCase(), v]));
  for (const name of names) {
    const values = byLowerName.get(name.toLowerCase());
    if (values?.length) return values;
  }
  return [];
}

function allValues(attributes: Record<string, string[]>, names: string[]): string[] {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const values = Object.entries(attributes)
    .filter(([name]) => wanted.has(name.toLowerCase()))
    .flatMap(([, v]) => v.map((s) => s.trim()))
    .filter((s) => s !== '');
  return [...new Set(values)];
}

function looksLikeEmail(value: string): boolean {
  return value.length <= 320 && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(value);
}

export function identityOf(
  profile: Profile,
  assertion: { id: string; notOnOrAfter: Date | null },
): SamlIdentity {
  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
  if (nameId === '') refuse('the assertion has no NameID');
  const attributes = attributesOf(profile);
  const email =
    profile.nameIDFormat === EMAIL_NAME_ID_FORMAT
      ? nameId
      : (firstValues(attributes, EMAIL_ATTRIBUTES)[0]?.trim() ?? '');
  if (!looksLikeEmail(email)) refuse('the assertion carries no email address');
  const name =
    firstValues(attributes, NAME_ATTRIBUTES)[0]?.trim() ||
    [GIVEN_NAME_ATTRIBUTES, SURNAME_ATTRIBUTES]
      .map((names) => firstValues(attributes, names)[0]?.trim() ?? '')
      .filter((part) => part !== '')
      .join(' ') ||
    null;
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null;
  return {
    nameId,
    email,
    name,
    groups: allValues(attributes, GROUP_ATTRIBUTES),
    assertionId: assertion.id,
    inResponseTo,
    notOnOrAfter: assertion.notOnOrAfter,
    attributes,
  };
}
