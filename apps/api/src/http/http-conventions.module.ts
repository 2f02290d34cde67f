import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthModule } from '#auth';
import { DatabaseModule } from '#database';
import { EventsModule } from '#events';
import { IdempotencyModule } from '#idempotency';
import { OrganizationsModule } from '#organizations';
import { AddressLimiter } from './address-limiter.js';
import { ScimTokensModule } from '#scim';
import { AuthGuard } from './auth.guard.js';
import { DocsController } from './docs.controller.js';
import { HttpExceptionFilter } from './http-exception.filter.js';
import { RequestCounting } from './request-counting.js';
import { RequestLimiter } from './request-limiter.js';

/**
 * What every route of the API shares: the counting of every request
 * (RequestCounting, installed by app.ts before any route: RequestLimiter or
 * AddressLimiter), the guard that authenticates and checks scopes, the filter
 * that writes every error, and the errors' help page. The APP_* providers
 * apply to the controllers of every module, wherever this one is imported.
 * It is global so that the Idempotency-Key and read-your-writes interceptors,
 * which ApiController binds to each route that may write, can be built in the
 * module of any controller: it exports what they need (IdempotencyRecords,
 * WritePositions). RequestLimiter is exported: live updates count against the
 * same limits.
 */
@Global()
@Module({
  imports: [
    AuthModule,
    DatabaseModule,
    EventsModule,
    OrganizationsModule,
    IdempotencyModule,
    ScimTokensModule,
  ],
  controllers: [DocsController],
  providers: [
    RequestLimiter,
    AddressLimiter,
    RequestCounting,
    { provide: APP_GUARD, useClass: AuthGuard },
    { provide: APP_FILTER, useClass: HttpExceptionFilter },
  ],
  exports: [RequestLimiter, IdempotencyModule, DatabaseModule],
})
export class HttpConventionsModule {}
