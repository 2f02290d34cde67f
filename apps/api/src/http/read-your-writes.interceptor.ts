import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { catchError, from, mergeMap, type Observable } from 'rxjs';
import { WritePositions } from '#database';
import type { ApiRequest } from './request-context.js';

/** Methods that never change anything (RFC 9110 §9.2.1): they leave no write to wait for. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read-your-writes with read replicas (docs/scaling-postgres.md): when an
 * authenticated request that may have written finishes, succeeded or not,
 * its tenant's WAL position is remembered before the answer goes out, so
 * the caller's next list, search or analytics read (on any instance) waits
 * for a replica that has replayed it, or reads the primary. Without
 * DATABASE_REPLICA_URLS it does nothing.
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(private readonly writes: WritePositions) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const principal = request.principal;
    if (!this.writes.enabled || !principal || SAFE_METHODS.has(request.method)) {
      return next.handle();
    }
    const remember = () => from(this.writes.remember(principal));
    return next.handle().pipe(
      mergeMap((value) => remember().pipe(mergeMap(() => [value]))),
      catchError((error: unknown) =>
        remember().pipe(
          mergeMap(() => {
            throw error;
          }),
        ),
      ),
    );
  }
}
