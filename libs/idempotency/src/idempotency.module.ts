import { TypeOrmModule } from '@nestjs/typeorm';
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { DatabaseModule } from '#database';
import { PeriodicTasks } from '#queue';
import { IdempotencyKeysRepository } from './idempotency-keys.repository.js';
import { IdempotencyRecords } from './idempotency-records.js';
import { IDEMPOTENCY_ENTITIES } from './entities.js';

/** The records of `Idempotency-Key` requests (the API's interceptor claims, completes and replays them). */
@Module({
  imports: [TypeOrmModule.forFeature(IDEMPOTENCY_ENTITIES), DatabaseModule],
  providers: [IdempotencyKeysRepository, IdempotencyRecords],
  exports: [IdempotencyRecords],
})
export class IdempotencyModule {}

const EXPIRE_EVERY_MS = 60 * 60 * 1000;

@Injectable()
class IdempotencyExpiry implements OnModuleInit {
  constructor(
    private readonly records: IdempotencyRecords,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({
      name: 'idempotency.expire',
      everyMs: EXPIRE_EVERY_MS,
      run: async () => ({ deleted: await this.records.deleteExpired() }),
    });
  }
}

/** The worker's side: deletes expired records hourly. */
@Module({ imports: [IdempotencyModule], providers: [IdempotencyExpiry] })
export class IdempotencyWorkModule {}
