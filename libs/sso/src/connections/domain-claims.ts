import { randomBytes } from 'node:crypto';
import { AppError } from '#common';
import type { Sql, Transaction } from '#database';

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
/** PostgreSQL's unique_violation: another connection verified the domain first. */
const UNIQUE_VIOLATION = '23505';

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

interface DomainRow {
  connection_id: string;
  domain: string;
  status: DomainClaim['status'];
  verification_token: string;
}

const DOMAIN_COLUMNS = 'connection_id, domain, status, verification_token';

function claimOf(row: DomainRow): DomainClaim {
  return { domain: row.domain, status: row.status, token: row.verification_token };
}

/** Each connection's claims, in the order its `email_domains` lists them. */
export async function domainClaimsOf(
  sql: Sql,
  connections: { id: string; emailDomains: string[] }[],
): Promise<Map<string, DomainClaim[]>> {
  const rows = await sql.rows<DomainRow>(
    `SELECT ${DOMAIN_COLUMNS} FROM sso_email_domains WHERE connection_id = ANY($1)`,
    [connections.map((connection) => connection.id)],
  );
  const claims = new Map<string, DomainClaim[]>();
  for (const connection of connections) {
    const own = rows.filter((row) => row.connection_id === connection.id);
    claims.set(
      connection.id,
      connection.emailDomains
        .map((domain) => own.find((row) => row.domain === domain))
        .filter((row) => row !== undefined)
        .map(claimOf),
    );
  }
  return claims;
}

/**
 * Makes the connection's claims the given domains: new ones pending with a
 * token of their own, ones it keeps as they are (a verified domain stays
 * verified), the rest dropped. A domain another connection holds verified is
 * a 409 naming `email_domains`; a domain others only claim is no obstacle.
 */
export async function claimDomains(
  tx: Transaction,
  connectionId: string,
  domains: string[],
): Promise<void> {
  const { rows: held } = await tx.query<{ domain: string }>(
    `SELECT domain FROM sso_email_domains
      WHERE domain = ANY($1) AND status = 'verified' AND connection_id <> $2
      ORDER BY domain LIMIT 1`,
    [domains, connectionId],
  );
  if (held[0]) {
    throw new AppError('CONFLICT', 'An email domain is already verified by another connection', {
      field: 'email_domains',
      issue: `${held[0].domain} signs in through an SSO connection that proved it first`,
    });
  }
  await tx.query(
    `DELETE FROM sso_email_domains WHERE connection_id = $1 AND NOT (domain = ANY($2))`,
    [connectionId, domains],
  );
  await tx.query(
    `INSERT INTO sso_email_domains (connection_id, domain, verification_token)
       SELECT $1, domain, token FROM unnest($2::text[], $3::text[]) AS claimed(domain, token)
     ON CONFLICT (connection_id, domain) DO NOTHING`,
    [connectionId, domains, domains.map(() => randomBytes(16).toString('hex'))],
  );
}

/** The pending claims whose TXT records are looked up next (the oldest checked first). */
export async function pendingClaims(
  sql: Sql,
  filter: { connectionId?: string; checkedBefore?: Date; limit: number },
): Promise<(DomainClaim & { connectionId: string })[]> {
  const rows = await sql.rows<DomainRow>(
    `SELECT ${DOMAIN_COLUMNS} FROM sso_email_domains
      WHERE status = 'pending' AND ($1::uuid IS NULL OR connection_id = $1)
        AND ($2::timestamptz IS NULL OR checked_at IS NULL OR checked_at < $2)
      ORDER BY checked_at NULLS FIRST LIMIT $3`,
    [filter.connectionId ?? null, filter.checkedBefore ?? null, filter.limit],
  );
  return rows.map((row) => ({ ...claimOf(row), connectionId: row.connection_id }));
}

/**
 * Records a lookup: `found` marks the claim verified, unless another
 * connection proved the domain meanwhile (then it stays pending). Whether it
 * is verified now.
 */
export async function recordCheck(
  sql: Sql,
  claim: { connectionId: string; domain: string },
  found: boolean,
): Promise<boolean> {
  if (found) {
    try {
      const rows = await sql.rows(
        `UPDATE sso_email_domains SET status = 'verified', verified_at = now(), checked_at = now()
          WHERE connection_id = $1 AND domain = $2 AND status = 'pending' RETURNING 1`,
        [claim.connectionId, claim.domain],
      );
      if (rows.length > 0) return true;
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    }
  }
  await sql.rows(
    `UPDATE sso_email_domains SET checked_at = now() WHERE connection_id = $1 AND domain = $2`,
    [claim.connectionId, claim.domain],
  );
  return false;
}

/** Whether the connection holds `domain` verified: what its IdP or directory may vouch for. */
export async function provedBy(sql: Sql, connectionId: string, domain: string): Promise<boolean> {
  const rows = await sql.rows(
    `SELECT 1 FROM sso_email_domains
      WHERE connection_id = $1 AND domain = $2 AND status = 'verified'`,
    [connectionId, domain],
  );
  return rows.length > 0;
}
