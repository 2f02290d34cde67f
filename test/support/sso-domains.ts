import { parsePublicId } from '#common';
import { Sql } from '#database';
import type { Stack } from './stack.js';

/**
 * Marks a connection's email domains verified, as publishing their TXT
 * records and `POST …/verify-domains` would: for tests of signing in, whose
 * subject is not the proof (test/sso-domain-verification.e2e-spec.ts does it
 * for real, with a DNS server of its own).
 */
export async function markDomainsVerified(stack: Stack, connectionId: string): Promise<void> {
  await stack.api
    .get(Sql)
    .rows(
      `UPDATE sso_email_domains SET status = 'verified', verified_at = now() WHERE connection_id = $1`,
      [parsePublicId('ssoConnection', connectionId)],
    );
}
