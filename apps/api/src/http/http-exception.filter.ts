import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppSettings } from '#config';
import { sendError } from './error-translation.js';

/** The one place every error of a Nest route (and the unknown-route handler) becomes a response. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  constructor(private readonly settings: AppSettings) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(
      exception,
      http.getRequest<Request>(),
      http.getResponse<Response>(),
      this.settings.publicUrl,
    );
  }
}
