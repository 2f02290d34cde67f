import type { NextFunction, Request, Response } from 'express';
import type { ServedBases } from './sandbox.js';

/**
 * The policy of Swagger UI at /docs: its own scripts only (@nestjs/swagger
 * serves the initialisation as swagger-ui-init.js, so no inline script is
 * needed), its styles (the page's <style> block and the style attributes of
 * its icons are inline), images from data: URLs (the stylesheet's icons),
 * requests to the document and to the API it describes at either base ("Try it out"), never
 * framed.
 */
export function swaggerUiCsp(bases: ServedBases): string {
  const origins = new Set([bases.publicUrl, bases.sandboxUrl].map((url) => new URL(url).origin));
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ${[...origins].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The error reference at /docs/errors: plain HTML, nothing to load. */
export const ERROR_PAGE_CSP =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Headers for everything under /docs (Swagger UI, its assets, the error
 * reference): a Content-Security-Policy, anti-framing both ways (CSP's
 * frame-ancestors, and X-Frame-Options for older browsers) and no MIME
 * sniffing. Mounted before Swagger UI and Nest's routes; a handler may still
 * set its own type, never these.
 */
export function docsHeaders(bases: ServedBases) {
  const swaggerUi = swaggerUiCsp(bases);
  return (request: Request, response: Response, next: NextFunction): void => {
    const errorsPage = /^\/errors\/?$/i.test(request.path);
    response.setHeader('Content-Security-Policy', errorsPage ? ERROR_PAGE_CSP : swaggerUi);
    response.setHeader('X-Frame-Options', 'DENY');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
}
