import type { NextFunction, Request, Response } from 'express';
import { AppError, storableTextIssue as textIssue } from '#common';
import { renderErrorPage } from '../oauth/authorization-server/pages.js';
import { OAuthError } from './oauth-error.js';
import { routeParams } from './route-table.js';

/** Deepest nesting of arrays and objects a JSON body may have; the body itself is level 1. */
export const MAX_BODY_DEPTH = 32;

/**
 * Refuses, before anything reads them, inputs that no route can take:
 * bodies nested deeper than MAX_BODY_DEPTH (recursive code further on —
 * validation, canonical JSON — would overflow the stack), and text PostgreSQL
 * cannot store or compare anywhere in the body (keys too), the query or the
 * path: the NUL character, and unpaired surrogates (a JSON body's `\ud800`,
 * which jsonb refuses). One place for every route, the authorization
 * server's included; each refusal names the field as validation would
 * (`target`, `reference.name`, `sessions.2.cue`). A path no route takes
 * answers 404 as any other.
 */
export function guardRequestInput(request: Request, response: Response, next: NextFunction): void {
  try {
    checkBody(request.body);
    checkFlat(request.query as Record<string, unknown>);
    checkPath(request);
  } catch (error) {
    return refuse(error as AppError, request, response, next);
  }
  next();
}

/** The OAuth endpoints that answer errors in RFC 6749's JSON form. */
const OAUTH_FORM_ROUTES = new Set(['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect']);
/** The authorization server's browser pages, which answer errors as a page. */
const BROWSER_PAGES = /^\/oauth2\/(authorize|interaction)(\/|$)/;

/**
 * Each route's own error form: the envelope, or RFC 6749's JSON, or a page for
 * a browser. A path no route takes answers 404 whatever its input.
 */
function refuse(error: AppError, request: Request, response: Response, next: NextFunction): void {
  if (routeParams(request) === null) return next();
  const description = `${error.details.field} ${error.details.issue}`;
  if (OAUTH_FORM_ROUTES.has(request.path))
    return next(new OAuthError('invalid_request', description));
  if (!BROWSER_PAGES.test(request.path)) return next(error);
  response
    .status(400)
    .set({
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-store',
    })
    .type('html')
    .send(renderErrorPage('invalid_request', description));
}

/** One walk with an explicit stack (never recursion): depth, and the text of keys and strings. */
function checkBody(body: unknown): void {
  if (body === null || typeof body !== 'object') {
    const issue = typeof body === 'string' ? textIssue(body) : null;
    if (issue) throw AppError.invalid('body', issue);
    return;
  }
  const pending: { value: unknown; path: string; depth: number }[] = [
    { value: body, path: '', depth: 1 },
  ];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    if (typeof value === 'string') {
      const issue = textIssue(value);
      if (issue) throw AppError.invalid(path || 'body', issue);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_BODY_DEPTH) {
      throw AppError.invalid('body', `must not be nested more than ${MAX_BODY_DEPTH} levels deep`);
    }
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      const issue = textIssue(key);
      if (issue) throw AppError.invalid(childPath, issue);
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
}

/** The query (and form fields): names and values, a repeated name giving an array of strings. */
function checkFlat(fields: Record<string, unknown> | undefined): void {
  for (const [name, value] of Object.entries(fields ?? {})) {
    for (const text of [name, ...(Array.isArray(value) ? value : [value])]) {
      const issue = typeof text === 'string' ? textIssue(text) : null;
      if (issue) throw AppError.invalid(name, issue);
    }
  }
}

/**
 * Path parameters, named after the route's parameter. A path no route takes
 * is left to answer 404; one a route takes whose parameters are not valid
 * percent-encoding is refused here, naming the path.
 */
function checkPath(request: Request): void {
  if (!request.path.includes('%')) return;
  const params = routeParams(request);
  if (params === 'undecodable') {
    throw AppError.invalid('path', 'is not valid percent-encoding (UTF-8)');
  }
  for (const [name, value] of Object.entries(params ?? {})) {
    const issue = textIssue(value);
    if (issue) throw AppError.invalid(name, issue);
  }
}
