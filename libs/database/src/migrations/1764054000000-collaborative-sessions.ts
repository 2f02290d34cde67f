import type { MigrationInterface, QueryRunner } from 'typeorm';

/** How many analysts a session has, which sessions a merged one combines, and an organisation's raised concurrency limit. */
export class CollaborativeSessions1764054000000 implements MigrationInterface {
  name = 'CollaborativeSessions1764054000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD "analyst_count" smallint NOT NULL DEFAULT '1'`,
    );
    await queryRunner.query(`ALTER TABLE "sessions" ADD "merged_from" uuid array`);
    await queryRunner.query(`ALTER TABLE "organizations" ADD "max_concurrent_sessions" integer`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "organizations" DROP COLUMN "max_concurrent_sessions"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "merged_from"`);
    await queryRunner.query(`ALTER TABLE "sessions" DROP COLUMN "analyst_count"`);
  }
}
