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
/** People signed out at once by signOutAll. */
const SIGN_OUT_BATCH = 4;

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

  /**
   * Several people (the people of a disabled SSO connection), a few at a
   * time: each is a transaction and a Redis write, and the pool
   * (DATABASE_POOL_MAX, 10 by default) serves other requests meanwhile.
   */
  async signOutAll(userIds: readonly string[]): Promise<void> {
    for (let start = 0; start < userIds.length; start += SIGN_OUT_BATCH) {
      await Promise.all(
        userIds.slice(start, start + SIGN_OUT_BATCH).map((userId) => this.signOut(userId)),
      );
    }
  }
}
