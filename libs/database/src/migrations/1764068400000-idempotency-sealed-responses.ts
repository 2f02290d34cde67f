import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records bound to the credential that made the first request,
 * their responses sealed (they can hold one-time secrets: new API keys, client
 * and webhook secrets). Records from before this change held responses in
 * clear and no caller, so they are dropped: a retry within 24 hours of the
 * upgrade runs again instead of replaying.
 */
export class IdempotencySealedResponses1764068400000 implements MigrationInterface {
  name = 'IdempotencySealedResponses1764068400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "response_body"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "caller" text NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "response_sealed" text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "response_sealed"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "caller"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "response_body" jsonb`);
  }
}
