import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The roles an SSO connection gives the people it provisions at their first
 * sign-in (issue 18): `{admin}` for connections from before, as they were;
 * `{analyst}` lets a team of viewers sign in blind from the start.
 */
export class SsoJitRoles1764111600000 implements MigrationInterface {
  name = 'SsoJitRoles1764111600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_connections" ADD "jit_roles" text array NOT NULL DEFAULT '{admin}'`,
    );
    await queryRunner.query(
      `ALTER TABLE "sso_connections" ADD CONSTRAINT "CHK_sso_connections_jit_roles" CHECK ("jit_roles" <@ ARRAY['admin', 'analyst', 'judge']::text[] AND cardinality("jit_roles") > 0)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sso_connections" DROP CONSTRAINT "CHK_sso_connections_jit_roles"`,
    );
    await queryRunner.query(`ALTER TABLE "sso_connections" DROP COLUMN "jit_roles"`);
  }
}
