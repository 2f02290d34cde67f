import { Injectable } from '@nestjs/common';
import { toPublicId } from '#common';
import { Sql } from '#database';
import { OidcPayloadsRepository } from './oidc-payloads.repository.js';
import { RevokedGrants } from './revoked-grants.js';

/**
 * Ends a person's access everywhere at once, when they are disabled or
 * removed (by an admin or SCIM): their refresh tokens and sign-in sessions
 * are deleted, and every grant they held is marked revoked in Redis, which
 * every API instance reads before accepting an access token — so a token
 * they already hold is refused on its next use, not when it expires.
 */
@Injectable()
export class AccountSignOut {
  constructor(
    private readonly sql: Sql,
    private readonly payloads: OidcPayloadsRepository,
    private readonly revokedGrants: RevokedGrants,
  ) {}

  /** How many grants were ended. */
  async signOut(userId: string): Promise<number> {
    const grants = await this.sql.transaction((tx) =>
      this.payloads.deleteOfAccount(tx, toPublicId('user', userId)),
    );
    await Promise.all(grants.map((grant) => this.revokedGrants.revoke(grant)));
    return grants.length;
  }
}
