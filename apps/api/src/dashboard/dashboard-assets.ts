import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express, type Response } from 'express';

/**
 * The dashboard's policy: its own scripts, styles and API only (WebSockets to
 * this origin included, which 'self' covers in current browsers; ws: and wss:
 * of the same host are named for older ones), images also from blob: URLs
 * (sketches and photos are fetched with the token, then shown), nothing
 * inline, never framed.
 */
export function dashboardCsp(publicUrl: string): string {
  const socket = publicUrl.replace(/^http/, 'ws');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    `connect-src 'self' ${socket}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

/**
 * Serves the built dashboard at /dashboard: hashed assets (`/dashboard/assets/…`)
 * cached for a year, and index.html — never cached, so a deploy shows at once —
 * for /dashboard and every client route under it. Mounted on Express before
 * Nest's routes, like the authorization server: it is no API operation and
 * stays out of the OpenAPI document. Without a build it answers 404 with a hint.
 */
export function mountDashboard(app: Express, publicUrl: string, directory: string): void {
  const csp = dashboardCsp(publicUrl);
  const index = join(directory, 'index.html');
  const secure = (response: Response) => {
    response.setHeader('Content-Security-Policy', csp);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    response.setHeader('Referrer-Policy', 'no-referrer');
  };
  app.use(
    '/dashboard/assets',
    express.static(join(directory, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: false,
      setHeaders: (response) => secure(response),
    }),
  );
  app.get(['/dashboard', '/dashboard/{*rest}'], (_request, response) => {
    secure(response);
    if (!existsSync(index)) {
      response.status(404).type('text').send('The dashboard is not built: run npm run build.');
      return;
    }
    response.setHeader('Cache-Control', 'no-cache');
    response.sendFile(index);
  });
}
