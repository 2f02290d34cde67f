import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
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
    const principal = request.principal;
    const uuid = principal && exception instanceof AppError ? missingUuid(exception) : null;
    if (!principal || !(exception instanceof AppError) || uuid === null) {
      send(exception);
      return;
    }
    // Only a 404 for a well-formed id of an authenticated caller waits for this query.
    this.otherMode.holding(principal, uuid).then(
      (heldIn) => send(heldIn === null ? exception : exception.inOtherMode(principal.mode, heldIn)),
      (error: unknown) => {
        logger.warn(`Could not look for a 404's id in the other mode: ${String(error)}`);
        send(exception);
      },
    );
  }
}

/** The UUID of the id a NOT_FOUND was looking for, when it is a public id. */
function missingUuid(error: AppError): string | null {
  if (error.code !== 'NOT_FOUND' || !error.missing) return null;
  try {
    return TypeID.fromString(error.missing.id).toUUID();
  } catch {
    return null;
  }
}
