import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { IdempotencyModule } from '#idempotency';
import { OrganizationsModule } from '#organizations';
import { AuthGuard } from './auth.guard.js';
import { DocsController } from './docs.controller.js';
import { HttpExceptionFilter } from './http-exception.filter.js';
import { IdempotencyInterceptor } from './idempotency/idempotency.interceptor.js';
import { ReadYourWritesInterceptor } from './read-your-writes.interceptor.js';
import { RequestLimiter } from './request-limiter.js';

/**
 * What every route of the API shares: the guard that authenticates, counts
 * (RequestLimiter) and checks scopes, the filter that writes every error, the
 * Idempotency-Key interceptor, read-your-writes with read replicas, and the
 * errors' help page. The APP_* providers apply to the controllers of every
 * module, wherever this one is imported.
 * RequestLimiter is exported: live updates count against the same limits.
 */
@Module({
  imports: [AuthModule, DatabaseModule, EventsModule, OrganizationsModule, IdempotencyModule],
  controllers: [DocsController],
  providers: [
    RequestLimiter,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
    { provide: APP_INTERCEPTOR, useClass: ReadYourWritesInterceptor },
  ],
  exports: [RequestLimiter],
})
export class HttpConventionsModule {}
