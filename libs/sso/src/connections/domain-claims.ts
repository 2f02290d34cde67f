import { randomBytes } from 'node:crypto';
import { AppError } from '#common';

/**
 * A connection's claim on an email domain. Any organisation may claim any
 * domain, but a claim routes sign-ins, and stops others, only once it is
 * `verified`: the domain published the claim's TXT record. The first
 * organisation to prove a domain holds it; others' claims stay pending.
 */
export interface DomainClaim {
  domain: string;
  status: 'pending' | 'verified';
  /** What the domain must publish: `_sas-verification.<domain>` TXT `sas-verification=<token>`. */
  token: string;
}

const VERIFICATION_NAME_PREFIX = '_sas-verification.';
const VERIFICATION_VALUE_PREFIX = 'sas-verification=';

/** The DNS record that proves `claim`: its name and the TXT value to publish there. */
export function verificationRecord(claim: Pick<DomainClaim, 'domain' | 'token'>): {
  name: string;
  value: string;
} {
  return {
    name: `${VERIFICATION_NAME_PREFIX}${claim.domain}`,
    value: `${VERIFICATION_VALUE_PREFIX}${claim.token}`,
  };
}

/** Fresh tokens for claims the connection may not hold yet (kept claims keep theirs). */
export function newClaims(domains: string[]): { domain: string; token: string }[] {
  return domains.map((domain) => ({ domain, token: randomBytes(16).toString('hex') }));
}

/** A 409 naming `email_domains`: another connection proved `domain` first. */
export function domainHeldElsewhere(domain: string): AppError {
  return new AppError('CONFLICT', 'An email domain is already verified by another connection', {
    field: 'email_domains',
    issue: `${domain} signs in through an SSO connection that proved it first`,
  });
}

/** Each connection's claims, in the order its `email_domains` lists them. */
export function claimsInListedOrder(
  connections: { id: string; emailDomains: string[] }[],
  claims: (DomainClaim & { connectionId: string })[],
): Map<string, DomainClaim[]> {
  const byConnection = new Map<string, DomainClaim[]>();
  for (const connection of connections) {
    const own = claims.filter((claim) => claim.connectionId === connection.id);
    byConnection.set(
      connection.id,
      connection.emailDomains
        .map((domain) => own.find((claim) => claim.domain === domain))
        .filter((claim) => claim !== undefined)
        .map(({ domain, status, token }) => ({ domain, status, token })),
    );
  }
  return byConnection;
}
