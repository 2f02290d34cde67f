import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server's codes, refresh tokens, sessions and interactions
 * were stored under their own value (`oidc_payloads.id`, and again in the
 * payload's `jti`). They are now stored under the SHA-256 of it, as API keys
 * are; grants keep their ids (they are no credential). Existing tokens go on
 * working: a lookup hashes the value it is given.
 */
export class HashedOauthTokenIds1764072000000 implements MigrationInterface {
  name = 'HashedOauthTokenIds1764072000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "oidc_payloads" SET "id" = encode(sha256(convert_to("id", 'UTF8')), 'hex'), "payload" = "payload" - 'jti' WHERE "kind" <> 'Grant'`,
    );
  }

  async down(): Promise<void> {
    // A hash cannot be turned back into the token: stored codes and tokens stay hashed.
  }
}
