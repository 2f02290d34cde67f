import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People who sign in through an SSO connection (issue 17): where their
 * identity comes from, the connection, their groups as the IdP or directory
 * gave them at the last sign-in, the scopes those map to (null for local
 * accounts: their tokens are bounded by the client alone), and when they
 * last signed in. `sso_connection_id` names the connection of the last SSO
 * sign-in; deleting the connection clears it (UsersService), as the users
 * table is the auth lib's and the connections table the sso lib's.
 */
export class SsoUsers1764104400000 implements MigrationInterface {
  name = 'SsoUsers1764104400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "users" ADD "identity_source" text NOT NULL DEFAULT 'local', ADD "sso_connection_id" uuid, ADD "groups" text array NOT NULL DEFAULT '{}', ADD "scopes" text array, ADD "last_sign_in_at" TIMESTAMP WITH TIME ZONE`,
    );
    await queryRunner.query(
      `ALTER TABLE "users" ADD CONSTRAINT "CHK_users_identity_source" CHECK ("identity_source" IN ('local', 'saml', 'ldap'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "users" DROP CONSTRAINT "CHK_users_identity_source"`);
    await queryRunner.query(
      `ALTER TABLE "users" DROP COLUMN "last_sign_in_at", DROP COLUMN "scopes", DROP COLUMN "groups", DROP COLUMN "sso_connection_id", DROP COLUMN "identity_source"`,
    );
  }
}
