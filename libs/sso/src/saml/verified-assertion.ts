import type { Profile } from '@node-saml/node-saml';
import { SamlSignInError } from './errors.js';

/** What we check ourselves in the signed assertion: node-saml leaves Issuer and Recipient alone. */
export interface VerifiedAssertion {
  id: string;
  issuer: string;
  /** Bearer SubjectConfirmationData Recipients. */
  recipients: string[];
  /** The earliest NotOnOrAfter of the Conditions and of the bearer confirmations. */
  notOnOrAfter: Date | null;
}

type XmlJs = { $?: Record<string, string>; _?: string } & Record<string, unknown>;

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

function children(node: XmlJs | undefined, name: string): XmlJs[] {
  const value = node?.[name];
  return Array.isArray(value) ? (value as XmlJs[]) : [];
}

/** Reads the assertion node-saml verified (never the unsigned envelope around it). */
export function verifiedAssertionOf(profile: Profile): VerifiedAssertion {
  const parsed = profile.getAssertion?.() as { Assertion?: XmlJs } | undefined;
  const assertion = parsed?.Assertion;
  const id = assertion?.$?.ID;
  if (!assertion || !id) {
    throw new SamlSignInError('invalid_response', 'the assertion has no ID');
  }
  const issuer = children(assertion, 'Issuer')[0]?._?.trim() ?? '';
  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation')
    .filter((c) => c.$?.Method === BEARER)
    .flatMap((c) => children(c, 'SubjectConfirmationData'));
  const deadlines = [
    ...children(assertion, 'Conditions').map((c) => c.$?.NotOnOrAfter),
    ...confirmations.map((c) => c.$?.NotOnOrAfter),
  ]
    .filter((value): value is string => typeof value === 'string')
    .map((value) => Date.parse(value))
    .filter((ms) => Number.isFinite(ms));
  return {
    id,
    issuer,
    recipients: confirmations.map((c) => c.$?.Recipient ?? ''),
    notOnOrAfter: deadlines.length > 0 ? new Date(Math.min(...deadlines)) : null,
  };
}
