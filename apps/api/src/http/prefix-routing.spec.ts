import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PrefixRoutedExpressAdapter,
  requestGroupKey,
  routeGroupKey,
  routerLayers,
} from './prefix-routing.js';

describe('group keys', () => {
  it.each([
    ['/v1/sessions', '/v1/sessions'],
    ['/v1/sessions/:session_id/results', '/v1/sessions'],
    ['/V1/Api-Keys/:id', '/v1/api-keys'],
    ['/metrics', '/metrics'],
    ['/docs/', '/docs'],
    ['/.well-known/jwks.json', '/.well-known/jwks.json'],
    ['/invitations/:token', null],
    ['/:tenant/sessions', null],
    ['/dashboard/{*rest}', null],
    ['/v1/sessions{/:id}', null],
    ['/', null],
    ['*path', null],
  ])('a route at %s is filed under %s', (path, key) => {
    expect(routeGroupKey(path)).toBe(key);
  });

  it.each([
    ['/v1/sessions', '/v1/sessions'],
    ['/v1/sessions/', '/v1/sessions'],
    ['/V1/SESSIONS/sess_1/results', '/v1/sessions'],
    ['/metrics', '/metrics'],
    ['/metrics/', '/metrics'],
    ['/metrics//', '/metrics'],
    ['/', '/'],
  ])('a request for %s looks in %s', (path, key) => {
    expect(requestGroupKey(path)).toBe(key);
  });
});

/**
 * The same routes registered on a plain Express application and through the
 * adapter, the adapter's ones mixed with middleware and routes it does not
 * group as Nest and app.ts mix them, then the same requests sent to both:
 * every answer must be the same, whatever the method, case, slashes or
 * encoding of the path.
 */
describe('PrefixRoutedExpressAdapter serves what Express alone serves', () => {
  let plain: Server;
  let grouped: Server;

  type Register = (method: string, path: string, ...handlers: express.RequestHandler[]) => void;
  type Registrars = Record<string, (...args: unknown[]) => unknown>;

  /** Answers with the route's name and its parameters. */
  const answer =
    (name: string) =>
    (request: Request, response: Response): void => {
      response.set('x-route', name).json({ name, params: request.params });
    };

  function routes(app: Express, route: Register): void {
    app.use((_request, response, next) => {
      response.set('x-first', 'yes');
      next();
    });
    route('get', '/v1/sessions', answer('list'));
    route('post', '/v1/sessions', answer('create'));
    route('get', '/v1/sessions/:id', answer('read'));
    // After the parameter route of its own prefix: never reached by GET.
    route('get', '/v1/sessions/special', answer('special'));
    route('get', '/v1/sessions/:id/results', answer('results'));
    route('delete', '/v1/sessions/:id', answer('delete'));
    route('get', '/V1/Things/:id', answer('thing'));
    route('all', '/v1/any/:x', answer('any'));
    route('options', '/v1/opts', answer('options'));
    route('get', '/docs/', answer('docs'));
    route('get', '/metrics', answer('metrics'));
    route('get', '/v1/fails', (_request, _response, next: NextFunction) => {
      next(new Error('it failed'));
    });
    route('get', '/v1/skips', (_request, _response, next: NextFunction) => next('route'));
    route('get', '/v1/skips', answer('skipped to'));
    // Not grouped (a parameter first): it must still come before the routes registered after it.
    route('get', '/:tenant/sessions', answer('tenant sessions'));
    route('get', '/v2/sessions', answer('v2 list'));
    route('get', '/v2/sessions/:id', answer('v2 read'));
    // Middleware between routes: every route after it must still see it.
    app.use((request, response, next) => {
      if (request.query.stop === '1') return void response.status(299).json({ stopped: true });
      next();
    });
    route('get', '/v2/late', answer('late'));
    route('get', '/v1/sessions/:id/sketches/:file', answer('sketch'));
    // Nest's last two layers: not found, then errors.
    app.use((request, response) => {
      response.status(404).json({ notFound: `${request.method} ${request.path}` });
    });
    app.use((error: Error, _request: Request, response: Response, _next: NextFunction) => {
      response.status(500).json({ error: error.message });
    });
  }

  async function listen(app: Express): Promise<Server> {
    return new Promise((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
  }

  beforeAll(async () => {
    const plainApp = express();
    routes(plainApp, (method, path, ...handlers) =>
      (plainApp as unknown as Registrars)[method]!(path, ...handlers),
    );
    const groupedApp = express();
    const adapter = new PrefixRoutedExpressAdapter(groupedApp);
    routes(groupedApp, (method, path, ...handlers) =>
      (adapter as unknown as Registrars)[method]!(path, ...handlers),
    );
    // Grouped indeed: fewer layers to walk, the same routes in all.
    const top = (groupedApp as unknown as { router: { stack: unknown[] } }).router.stack;
    expect(top.length).toBeLessThan(routerLayers(plainApp).length / 2);
    expect(routerLayers(groupedApp).filter((layer) => layer.route).length).toBe(
      routerLayers(plainApp).filter((layer) => layer.route).length,
    );
    [plain, grouped] = await Promise.all([listen(plainApp), listen(groupedApp)]);
  });
  afterAll(() => Promise.all([plain, grouped].map((server) => server?.close())));

  async function ask(server: Server, method: string, path: string) {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    return {
      status: response.status,
      route: response.headers.get('x-route'),
      first: response.headers.get('x-first'),
      allow: response.headers.get('allow'),
      body: await response.text(),
    };
  }

  const segment = fc.constantFrom(
    'v1',
    'V1',
    'v2',
    'sessions',
    'SESSIONS',
    '%73essions',
    'things',
    'any',
    'opts',
    'docs',
    'metrics',
    'fails',
    'skips',
    'special',
    'late',
    'results',
    'sketches',
    'acme',
    'sess_1',
    '',
  );
  const tail = fc.constantFrom('', '/', '?stop=1', '/?x=1');
  const anyPath = fc
    .tuple(fc.array(segment, { minLength: 1, maxLength: 5 }), tail)
    .map(([segments, end]) => `/${segments.join('/')}${end}`);
  /** The routes' own paths, parameters filled in, in upper or lower case. */
  const routePath = fc
    .tuple(
      fc.constantFrom(
        '/v1/sessions',
        '/v1/sessions/sess_1',
        '/v1/sessions/special',
        '/v1/sessions/sess_1/results',
        '/v1/sessions/sess_1/sketches/1.png',
        '/v1/things/1',
        '/v1/any/1',
        '/v1/opts',
        '/v1/fails',
        '/v1/skips',
        '/docs',
        '/metrics',
        '/acme/sessions',
        '/v2/sessions',
        '/v2/sessions/sess_1',
        '/v2/late',
      ),
      fc.boolean(),
      tail,
    )
    .map(([route, upper, end]) => `${upper ? route.toUpperCase() : route}${end}`);
  const path = fc.oneof(routePath, anyPath);
  const method = fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'OPTIONS');

  it('answers every method and path alike', async () => {
    await fc.assert(
      fc.asyncProperty(method, path, async (method, path) => {
        const [expected, actual] = await Promise.all([
          ask(plain, method, path),
          ask(grouped, method, path),
        ]);
        expect(actual, `${method} ${path}`).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it.each([
    ['GET', '/v1/sessions/sess_1', 'read'],
    ['GET', '/V1/SESSIONS/', 'list'],
    ['GET', '/v1/sessions/special', 'read'],
    ['GET', '/v2/sessions', 'tenant sessions'],
    ['GET', '/v2/sessions/sess_1', 'v2 read'],
    ['GET', '/v1/skips', 'skipped to'],
    ['OPTIONS', '/v1/opts', 'options'],
    ['PUT', '/v1/any/1', 'any'],
    ['HEAD', '/metrics/', 'metrics'],
    ['GET', '/docs', 'docs'],
  ])('%s %s reaches %s', async (method, path, route) => {
    expect((await ask(grouped, method, path)).route).toBe(route);
  });

  it('leaves unknown paths, errors and OPTIONS to the layers after the routes', async () => {
    expect((await ask(grouped, 'OPTIONS', '/v1/sessions')).status).toBe(404);
    expect((await ask(grouped, 'GET', '/v1/fails')).status).toBe(500);
    expect((await ask(grouped, 'GET', '/v2/late?stop=1')).status).toBe(299);
    expect((await ask(grouped, 'GET', '/v1/%73essions')).status).toBe(404);
  });
});
