import { createHash } from 'node:crypto';
import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { catchError, mergeMap, of, type Observable } from 'rxjs';
import { AppError, canonicalJson, type JsonValue, type Principal } from '#common';
import type { ApiRequest } from '../request-context.js';
import { multipartRequestHash, readMultipartForm } from '../multipart.js';
import { multipartUploadLimits, streamedBodyTypes } from '../streamed-bodies.js';
import { IDEMPOTENCY_WINDOW_HOURS, IdempotencyRecords } from '#idempotency';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Printable ASCII without spaces, as Stripe's keys: UUIDs and the like. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on every authenticated POST (DESIGN §4). The first
 * request with a key runs and, when it succeeds, its status and body are kept
 * (sealed) for 24 hours; the same caller with the same key and request (route
 * and body) gets that response again with `Idempotent-Replayed: true` and the
 * first request's id in `Original-Request`, without running again; another
 * request, or another credential, gets 409. A duplicate sent while the first
 * still runs waits for it (up to 10 s) and then replays. A failed first
 * request keeps nothing, so it can be retried with the same key. Routes that
 * stream their body (streamed-bodies.ts) take no part and ignore the header.
 * A multipart upload (a submission with sketches) is read here, before its
 * route, and the key is checked against its fields and its files' names and
 * SHA-256 (multipartRequestHash): a retry that builds the same form again is
 * replayed, whatever boundary it uses; the route then gets the same form.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly keys: IdempotencyRecords,
    private readonly reflector: Reflector,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    const key = request.header(IDEMPOTENCY_HEADER);
    const principal = request.principal;
    if (request.method !== 'POST' || key === undefined || !principal) return next.handle();
    // A streamed body is read by the route, after this runs: it cannot be hashed, so the
    // key could not tell a retry from another request. Such routes are idempotent by design.
    if (streamedBodyTypes(request)) return next.handle();
    if (!KEY_PATTERN.test(key)) {
      throw AppError.invalid(
        IDEMPOTENCY_HEADER,
        'must be 1 to 255 printable ASCII characters without spaces (a UUID, say)',
      );
    }
    const route = `POST ${request.originalUrl}`;
    const multipart = multipartUploadLimits(request);
    const requestHash = multipart
      ? multipartRequestHash(await readMultipartForm(request, multipart))
      : createHash('sha256')
          .update(canonicalJson((request.body ?? null) as JsonValue))
          .digest('hex');
    const response = context.switchToHttp().getResponse<Response>();
    const outcome = await this.keys.begin(principal, key, route, requestHash, request.id);
    switch (outcome.kind) {
      case 'replay':
        response.set({ 'Idempotent-Replayed': 'true', 'Original-Request': outcome.requestId });
        return of(outcome.body);
      case 'other_caller':
        throw new AppError(
          'CONFLICT',
          `This ${IDEMPOTENCY_HEADER} was already used by another credential`,
          {
            field: IDEMPOTENCY_HEADER,
            issue: `a key's response is replayed only to the credential that made the first request; use a new key`,
          },
        );
      case 'unreadable':
        throw new AppError(
          'CONFLICT',
          `The first response to this ${IDEMPOTENCY_HEADER} can no longer be replayed`,
          {
            field: IDEMPOTENCY_HEADER,
            issue:
              'the request already ran, but its stored response cannot be read (the service’s SIGNING_KEY_SECRET changed); read the resource it created, or use a new key',
          },
        );
      case 'mismatch':
        throw new AppError(
          'CONFLICT',
          `This ${IDEMPOTENCY_HEADER} was already used with a different request`,
          {
            field: IDEMPOTENCY_HEADER,
            issue: `used within the last ${IDEMPOTENCY_WINDOW_HOURS} hours for ${outcome.route} with another body; use a new key for a new request`,
          },
        );
      case 'in_progress':
        throw new AppError(
          'CONFLICT',
          `A request with this ${IDEMPOTENCY_HEADER} is still being processed`,
          { field: IDEMPOTENCY_HEADER, issue: 'the first request has not finished; retry shortly' },
          { 'Retry-After': '1' },
        );
      case 'claimed':
        response.set('Idempotent-Replayed', 'false');
        return this.recorded(context, next, principal, key);
    }
  }

  private recorded(
    context: ExecutionContext,
    next: CallHandler,
    principal: Principal,
    key: string,
  ): Observable<unknown> {
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? 201;
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        await this.keys.complete(principal, key, status, body);
        return body;
      }),
      catchError(async (error: unknown) => {
        await this.keys.release(principal, key).catch(() => undefined);
        throw error;
      }),
    );
  }
}
