import type { MigrationInterface, QueryRunner } from 'typeorm';

/** At most one operator organisation, so API instances starting together cannot create two. */
export class OneBootstrapOrganization1763863200000 implements MigrationInterface {
  name = 'OneBootstrapOrganization1763863200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNIQUE INDEX "organizations_one_bootstrap_key" ON "organizations" ("is_bootstrap") WHERE is_bootstrap`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "organizations_one_bootstrap_key"`);
  }
}
