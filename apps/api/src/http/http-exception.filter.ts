import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { TypeID } from 'typeid-js';
import { AppError } from '#common';
import { AppSettings } from '#config';
import { OtherModeRepository } from '#database';
import type { ApiRequest } from './request-context.js';
import { sendError } from './error-translation.js';

const logger = new Logger('HttpErrors');

/** The one place every error of a Nest route (and the unknown-route handler) becomes a response. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly settings: AppSettings,
    private readonly otherMode: OtherModeRepository,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<ApiRequest>();
    const response = http.getResponse<Response>();
    const send = (error: unknown) => sendError(error, request, response, this.settings.publicUrl);
    const lookup = this.otherModeLookup(exception, request);
    if (lookup === null) {
      send(exception);
      return;
    }
    // Only a 404 for a well-formed id of an authenticated caller waits for this query.
    lookup.then(
      (mode) =>
        send(
          mode === null ? exception : (exception as AppError).inOtherMode(request.principal!.mode),
        ),
      (error: unknown) => {
        logger.warn(`Could not look for a 404's id in the other mode: ${String(error)}`);
        send(exception);
      },
    );
  }

  /** Where a NOT_FOUND's id might be: the caller's organisation, in its other mode. */
  private otherModeLookup(exception: unknown, request: Request): Promise<unknown> | null {
    const principal = (request as ApiRequest).principal;
    if (!(exception instanceof AppError) || exception.code !== 'NOT_FOUND') return null;
    if (!principal || !exception.missing) return null;
    let uuid: string;
    try {
      uuid = TypeID.fromString(exception.missing.id).toUUID();
    } catch {
      return null;
    }
    return this.otherMode.holding(principal, uuid);
  }
}
