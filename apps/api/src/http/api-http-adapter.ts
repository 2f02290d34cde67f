import type { Response } from 'express';
import { replyJson } from './json-replies.js';
import { PrefixRoutedExpressAdapter } from './prefix-routing.js';

/**
 * The API's Express adapter for Nest: routes filed by their prefix
 * (prefix-routing.ts) and controllers' objects written as JSON without
 * Express's general path where nothing needs it (json-replies.ts). Both
 * serve exactly what Express alone would.
 */
export class ApiHttpAdapter extends PrefixRoutedExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (replyJson(response, body, statusCode)) return response;
    return super.reply(response, body, statusCode);
  }
}
