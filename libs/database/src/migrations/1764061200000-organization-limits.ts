import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Agreed request limits of an organisation, above its plan's and tier's. */
export class OrganizationLimits1764061200000 implements MigrationInterface {
  name = 'OrganizationLimits1764061200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "organizations" ADD "requests_per_minute" integer`);
    await queryRunner.query(`ALTER TABLE "organizations" ADD "requests_per_hour" integer`);
    await queryRunner.query(`ALTER TABLE "organizations" ADD "requests_per_day" integer`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "organizations" DROP COLUMN "requests_per_day"`);
    await queryRunner.query(`ALTER TABLE "organizations" DROP COLUMN "requests_per_hour"`);
    await queryRunner.query(`ALTER TABLE "organizations" DROP COLUMN "requests_per_minute"`);
  }
}
