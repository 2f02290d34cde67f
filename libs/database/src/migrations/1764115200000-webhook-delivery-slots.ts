import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for claiming webhook deliveries and handing a freed slot over
 * (issue 20): the due index carries the claim's tie-break (`id`) so its window
 * is read in order without a sort, and an endpoint's due deliveries are found
 * in order from an index of their own. `lease_until` stays out of every index
 * (and index predicate), so taking a lease remains a HOT update.
 */
export class WebhookDeliverySlots1764115200000 implements MigrationInterface {
  name = 'WebhookDeliverySlots1764115200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "webhook_deliveries_due_idx"`);
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at", "id") WHERE state = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_webhook_due_idx" ON "webhook_deliveries" ("webhook_id", "next_attempt_at", "id") WHERE state = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "webhook_deliveries_webhook_due_idx"`);
    await queryRunner.query(`DROP INDEX "webhook_deliveries_due_idx"`);
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE state = 'pending'`,
    );
  }
}
