import { Injectable } from '@nestjs/common';
import { Sql, type Queryable, type Transaction } from '#database';
import type { DomainClaim } from './domain-claims.js';

/** A claim as the verifier needs it: whose it is, and what to look up. */
export interface ConnectionClaim extends DomainClaim {
  organizationId: string;
  connectionId: string;
}

interface ClaimRow {
  organization_id: string;
  connection_id: string;
  domain: string;
  status: DomainClaim['status'];
  verification_token: string;
}

/** The columns of a claim; `c` is the claiming connection, which holds the organisation. */
const CLAIM_COLUMNS =
  'c.organization_id, d.connection_id, d.domain, d.status, d.verification_token';

function claimOf(row: ClaimRow): ConnectionClaim {
  return {
    organizationId: row.organization_id,
    connectionId: row.connection_id,
    domain: row.domain,
    status: row.status,
    token: row.verification_token,
  };
}

/**
 * The `sso_email_domains` table: connections' claims on email domains. A
 * claim has no organisation of its own; it is its connection's, so every
 * statement that takes the organisation reaches it through
 * `sso_connections`. Which connection holds a domain verified is asked
 * across organisations: one only may, whoever's it is.
 */
@Injectable()
export class SsoEmailDomainsRepository {
  constructor(private readonly sql: Sql) {}

  /** The claims of the organisation's connections among `connectionIds`, in no order. */
  async claimsOf(
    organizationId: string,
    connectionIds: string[],
    on: Queryable = this.sql,
  ): Promise<ConnectionClaim[]> {
    const rows = await on.rows<ClaimRow>(
      `SELECT ${CLAIM_COLUMNS}
         FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.connection_id = ANY($1) AND c.organization_id = $2`,
      [connectionIds, organizationId],
    );
    return rows.map(claimOf);
  }

  /** The first of `domains` (by name) that a connection other than `connectionId` holds verified. */
  async verifiedElsewhereAcrossTenants(
    connectionId: string,
    domains: string[],
    on: Queryable = this.sql,
  ): Promise<string | null> {
    const [row] = await on.rows<{ domain: string }>(
      `SELECT domain FROM sso_email_domains
        WHERE domain = ANY($1) AND status = 'verified' AND connection_id <> $2
        ORDER BY domain LIMIT 1`,
      [domains, connectionId],
    );
    return row?.domain ?? null;
  }

  /**
   * Makes the connection's claims exactly `claims`' domains: the others
   * dropped, new ones added pending with their tokens, kept ones left as
   * they are (a verified domain stays verified, with its token).
   */
  async replaceClaims(
    tx: Transaction,
    organizationId: string,
    connectionId: string,
    claims: { domain: string; token: string }[],
  ): Promise<void> {
    const domains = claims.map((claim) => claim.domain);
    await tx.query(
      `DELETE FROM sso_email_domains d USING sso_connections c
        WHERE d.connection_id = $1 AND NOT (d.domain = ANY($2))
          AND c.id = d.connection_id AND c.organization_id = $3`,
      [connectionId, domains, organizationId],
    );
    await tx.query(
      `INSERT INTO sso_email_domains (connection_id, domain, verification_token)
         SELECT c.id, claimed.domain, claimed.token
           FROM sso_connections c, unnest($2::text[], $3::text[]) AS claimed(domain, token)
          WHERE c.id = $1 AND c.organization_id = $4
       ON CONFLICT (connection_id, domain) DO NOTHING`,
      [connectionId, domains, claims.map((claim) => claim.token), organizationId],
    );
  }

  /** The connection's pending claims, the longest unchecked first. */
  async pendingOf(
    organizationId: string,
    connectionId: string,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<ConnectionClaim[]> {
    const rows = await on.rows<ClaimRow>(
      `SELECT ${CLAIM_COLUMNS}
         FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.status = 'pending' AND d.connection_id = $1 AND c.organization_id = $2
        ORDER BY d.checked_at NULLS FIRST LIMIT $3`,
      [connectionId, organizationId, limit],
    );
    return rows.map(claimOf);
  }

  /** Pending claims of every organisation not looked up since `checkedBefore`, the oldest first. */
  async pendingDueAcrossTenants(
    checkedBefore: Date,
    limit: number,
    on: Queryable = this.sql,
  ): Promise<ConnectionClaim[]> {
    const rows = await on.rows<ClaimRow>(
      `SELECT ${CLAIM_COLUMNS}
         FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.status = 'pending' AND (d.checked_at IS NULL OR d.checked_at < $1)
        ORDER BY d.checked_at NULLS FIRST LIMIT $2`,
      [checkedBefore, limit],
    );
    return rows.map(claimOf);
  }

  /**
   * Marks a pending claim verified (and checked); whether it was pending.
   * Throws PostgreSQL's unique_violation when another connection verified
   * the domain first.
   */
  async markVerified(
    tx: Transaction,
    organizationId: string,
    claim: { connectionId: string; domain: string },
  ): Promise<boolean> {
    const { rows } = await tx.query(
      `UPDATE sso_email_domains d SET status = 'verified', verified_at = now(), checked_at = now()
         FROM sso_connections c
        WHERE d.connection_id = $1 AND d.domain = $2 AND d.status = 'pending'
          AND c.id = d.connection_id AND c.organization_id = $3
        RETURNING 1`,
      [claim.connectionId, claim.domain, organizationId],
    );
    return rows.length > 0;
  }

  /** Records a lookup that did not verify the claim. */
  async markChecked(
    tx: Transaction,
    organizationId: string,
    claim: { connectionId: string; domain: string },
  ): Promise<void> {
    await tx.query(
      `UPDATE sso_email_domains d SET checked_at = now()
         FROM sso_connections c
        WHERE d.connection_id = $1 AND d.domain = $2
          AND c.id = d.connection_id AND c.organization_id = $3`,
      [claim.connectionId, claim.domain, organizationId],
    );
  }

  /** Whether the connection holds `domain` verified: what its IdP or directory may vouch for. */
  async isVerifiedBy(
    organizationId: string,
    connectionId: string,
    domain: string,
    on: Queryable = this.sql,
  ): Promise<boolean> {
    const rows = await on.rows(
      `SELECT 1 FROM sso_email_domains d JOIN sso_connections c ON c.id = d.connection_id
        WHERE d.connection_id = $1 AND d.domain = $2 AND d.status = 'verified'
          AND c.organization_id = $3`,
      [connectionId, domain, organizationId],
    );
    return rows.length > 0;
  }
}
