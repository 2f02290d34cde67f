import { Controller, Get, Post, RequestMethod, type Type } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersService } from '#auth';
import { ALL_SCOPES, httpStatusOf, toPublicId } from '#common';
import { WRITE_INTERCEPTORS } from '../apps/api/src/http/api-controller.decorator.js';
import { AUTH_METADATA, Public } from '../apps/api/src/http/auth.decorator.js';
import { AuthGuard } from '../apps/api/src/http/auth.guard.js';
import { Contract } from './support/contract.js';
import { createOrganization } from './support/factories.js';
import { TestClient } from './support/client.js';
import { startStack, type Stack } from './support/stack.js';
import type { AppSettings } from '#config';

let stack: Stack;
let contract: Contract;
let client: TestClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  contract = await Contract.load(stack.baseUrl);
  client = new TestClient(stack.baseUrl, contract);
});
afterAll(() => stack?.close());

/** Operational endpoints that are deliberately open; every other operation must require a scope. */
const PUBLIC_OPERATIONS = [
  'post /oauth2/token',
  'get /oauth2/authorize',
  'get /oauth/authorize',
  'get /oauth2/authorize/{uid}',
  'post /oauth2/revoke',
  'post /oauth2/introspect',
  'get /oauth2/interaction/{uid}',
  'post /oauth2/interaction/{uid}/login',
  'post /oauth2/interaction/{uid}/confirm',
  'post /oauth2/interaction/{uid}/abort',
  'post /oauth2/interaction/{uid}/sso',
  'post /oauth2/interaction/{uid}/sso/ldap',
  'get /oauth2/interaction/{uid}/sso/saml',
  'post /sso/saml/{connection_id}/acs',
  'get /.well-known/jwks.json',
  'get /.well-known/oauth-authorization-server',
  'get /health/live',
  'get /health/ready',
  'get /metrics',
  // SAML service-provider metadata: what an IdP administrator imports, public by nature.
  'get /sso/saml/{connection_id}/metadata',
  // Invitation pages: the one-time token in the path is the credential.
  'get /invitations/{token}',
  'post /invitations/{token}',
];

/**
 * Operations any valid credential may call, whatever its scopes (`@Auth({ scopes: [] })`):
 * facts about the deployment that every caller may need, never data of an organisation.
 */
const ANY_CREDENTIAL_OPERATIONS = [
  // The addresses webhook deliveries come from, for receivers to allow-list.
  'get /v2/webhooks/source-addresses',
];

describe('health and metrics', () => {
  it('reports liveness and readiness of PostgreSQL, Redis and the queues', async () => {
    expect((await client.get('/health/live')).body).toEqual({ status: 'ok' });
    const ready = await client.get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details).toMatchObject({
      database: { status: 'up' },
      redis: { status: 'up' },
      queues: { status: 'up' },
    });
  });

  it('serves Prometheus metrics including request durations', async () => {
    const metrics = await client.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
    expect(metrics.text).toMatch(
      /http_request_duration_seconds_bucket\{[^}]*route="\/health\/live"/,
    );
  });
});

describe('OpenAPI document', () => {
  it('serves Swagger UI at /docs', async () => {
    const page = await fetch(`${stack.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
  });

  it('declares the security schemes and covers both versions', () => {
    expect(contract.document.components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' },
      api_key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      oauth2: {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: `${contract.document.servers![0]!.url}/oauth2/token`,
            scopes: Object.fromEntries(ALL_SCOPES.map((scope) => [scope, expect.any(String)])),
          },
        },
      },
    });
    const paths = Object.keys(contract.document.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{session_id}',
        '/v1/sessions/{session_id}/results',
        '/v2/sessions/create',
        '/v2/sessions/{session_id}',
        '/v1/api-keys',
        '/oauth2/token',
      ]),
    );
  });

  it('gives every operation either a security requirement with scopes or an explicit public listing', () => {
    for (const [path, operations] of Object.entries(contract.document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const name = `${method} ${path}`;
        if (PUBLIC_OPERATIONS.includes(name)) {
          // Said outright (no credential), not left to a document-wide default.
          expect(operation.security, name).toEqual([]);
          continue;
        }
        expect(operation.security?.length, `${name} has no security requirement`).toBeGreaterThan(
          0,
        );
        // The OAuth 2.0 scheme (Swagger UI's client-credentials form) asks for exactly the scopes needed.
        expect(operation.security, name).toContainEqual({
          oauth2: operation['x-required-scopes'],
        });
        if (ANY_CREDENTIAL_OPERATIONS.includes(name)) {
          expect(operation['x-required-scopes'], name).toEqual([]);
        } else {
          expect(operation['x-required-scopes']?.length, `${name} names no scope`).toBeGreaterThan(
            0,
          );
        }
        expect(Object.keys(operation.responses), name).toEqual(
          expect.arrayContaining(['401', '403']),
        );
      }
    }
  });

  it('answers 404 to another organisation in the path of every organisation’s own route, before anything else', async () => {
    const owner = await createOrganization(stack, client, 'live');
    const token = await owner.token();
    const stranger = toPublicId(
      'organization',
      (await createOrganization(stack, client)).organizationId,
    );
    const reached: string[] = [];
    for (const [path, operations] of Object.entries(contract.document.paths)) {
      if (!path.includes('{organization_id}')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        if (operation['x-any-organization'] === true) continue;
        const concrete = path
          .replace('{organization_id}', stranger)
          .replace(/\{(\w+)\}/g, (_, name: string) => `unknown-${name}`);
        const body = ['get', 'delete'].includes(method) ? {} : { json: {} };
        const response = await client.request(method.toUpperCase(), concrete, { token, ...body });
        expect(response.status, `${method} ${path}: ${response.text}`).toBe(404);
        expect(response.body.error.message, `${method} ${path}`).toContain(stranger);
        reached.push(`${method} ${path}`);
      }
    }
    // SSO connections and SCIM tokens at least: the walk reached something.
    expect(reached.length).toBeGreaterThanOrEqual(8);
  });

  it('shows under each error status an example of that status, in the envelope its version writes', () => {
    let checked = 0;
    const statuses = new Set<string>();
    for (const [path, operations] of Object.entries(contract.document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const json = (response as { content?: Record<string, { example?: any; schema?: any }> })
            .content?.['application/json'];
          // The error envelope: its schema by reference, or inlined once a contract dereferenced
          // the document (whichever test file loaded it first).
          const envelope =
            json?.schema?.$ref === '#/components/schemas/ErrorEnvelopeDto' ||
            json?.schema?.properties?.error !== undefined;
          if (!envelope || !json.example?.error) continue;
          const name = `${method} ${path} → ${status}`;
          const { error } = json.example;
          expect(httpStatusOf(error.code), name).toBe(Number(status));
          expect(error.help_url !== undefined, name).toBe(path.startsWith('/v2/'));
          if (status === '403' && operation['x-required-scopes']?.length) {
            expect(error.details.required_scopes, name).toEqual(operation['x-required-scopes']);
          }
          // Valid as the answer it stands for.
          const url = `${stack.baseUrl}${path.replace(/\{[^}]+\}/g, 'x')}`;
          contract.check(
            method.toUpperCase(),
            url,
            Number(status),
            'application/json',
            json.example,
          );
          statuses.add(status);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect([...statuses].sort()).toEqual(
      expect.arrayContaining(['400', '401', '403', '404', '429']),
    );
  });

  it('gives filters examples that agree: a location example lies in the bbox example beside it', () => {
    let checked = 0;
    for (const [path, operations] of Object.entries(contract.document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        type Parameter = {
          name: string;
          in: string;
          example?: string;
          schema?: { example?: string };
        };
        const example = (name: string) => {
          const parameter = ((operation as { parameters?: Parameter[] }).parameters ?? []).find(
            (candidate) => candidate.in === 'query' && candidate.name === name,
          );
          return parameter?.example ?? parameter?.schema?.example;
        };
        const location = example('location');
        const bbox = example('bbox');
        if (location === undefined || bbox === undefined) continue;
        const [latitude, longitude] = location.split(',').map(Number) as [number, number];
        const [south, west, north, east] = bbox.split(',').map(Number) as [
          number,
          number,
          number,
          number,
        ];
        const name = `${method} ${path}`;
        expect(latitude >= south && latitude <= north, name).toBe(true);
        expect(longitude >= west && longitude <= east, name).toBe(true);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('lists no public operation that the service does not have', () => {
    const documented = Object.entries(contract.document.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(documented).toEqual(expect.arrayContaining(PUBLIC_OPERATIONS));
  });

  it('has no route the OpenAPI document leaves out (except the docs and the dashboard app)', () => {
    const express = stack.api.getHttpAdapter().getInstance() as {
      router: {
        stack: { route?: { path: string | string[]; methods: Record<string, boolean> } }[];
      };
    };
    // The dashboard is a web app's pages and assets (index.html for every client route), not API.
    const undocumented = (path: string) =>
      path.startsWith('/docs') || path.startsWith('{') || path.startsWith('/dashboard');
    const routes = express.router.stack
      .filter(
        (layer): layer is { route: { path: string; methods: Record<string, boolean> } } =>
          layer.route !== undefined &&
          !layer.route.methods.put &&
          ![layer.route.path].flat().every(undocumented),
      )
      .flatMap((layer) =>
        Object.keys(layer.route.methods).map(
          (m) => `${m} ${layer.route.path.replace(/:(\w+)/g, '{$1}')}`,
        ),
      );
    const documented = Object.entries(contract.document.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m} ${path}`),
    );
    expect(documented).toEqual(expect.arrayContaining(routes));
  });
});

describe('the route inventory', () => {
  it('has @Auth or @Public on every handler of every controller, inherited ones included', () => {
    const controllers = apiControllers();
    expect(controllers.length).toBeGreaterThan(15);
    expect(undeclaredHandlers(controllers)).toEqual([]);
  });

  it('runs the Idempotency-Key and read-your-writes interceptors first on every route that may write, and no interceptor on a read', () => {
    const routes = [...routeHandlers(apiControllers())];
    const writes = routes.filter(({ handler }) => mayWrite(handler));
    expect(writes.length).toBeGreaterThan(50);
    expect(writesWithoutConventions(apiControllers())).toEqual([]);
    const interceptedReads = routes
      .filter(({ handler }) => !mayWrite(handler) && interceptorsOf(handler).length > 0)
      .map(({ name }) => name);
    expect(interceptedReads).toEqual([]);
    // A global interceptor would run on every read too: Nest wraps each handler it applies to.
    const config = (stack.api as unknown as { config: ApplicationConfig }).config;
    expect(config.getGlobalInterceptors()).toEqual([]);
    expect(config.getGlobalRequestInterceptors()).toEqual([]);
  });

  it('finds a write route of a controller declared without ApiController (the check above can fail)', () => {
    @Controller('probe')
    class Plain {
      @Post('write')
      @Public()
      write() {}
    }
    expect(writesWithoutConventions([Plain])).toEqual(['Plain.write']);
  });

  it('finds an undeclared handler a controller inherits (the check above can fail)', () => {
    abstract class Base {
      @Get('inherited')
      inherited() {}
    }
    @Controller('probe')
    class Derived extends Base {
      @Get('own')
      @Public()
      own() {}
    }
    expect(undeclaredHandlers([Derived])).toEqual(['Derived.inherited']);
  });

  it('refuses to serve a route that declares neither (deny by default)', async () => {
    const guard = new AuthGuard(
      new Reflector(),
      stack.api.get(UsersService),
      stack.settings as AppSettings,
    );
    class Undeclared {
      handler() {}
    }
    const context = {
      getHandler: () => Undeclared.prototype.handler,
      getClass: () => Undeclared,
      switchToHttp: () => ({ getRequest: () => ({ header: () => undefined }) }),
    };
    await expect(guard.canActivate(context as never)).rejects.toThrow(
      /declares none of @Auth, @ScimAuth, @Public/,
    );
  });
});

describe('migrations', () => {
  it('leave nothing for the entities to add (schema and entities agree)', async () => {
    const { pendingSchemaChanges } = await import('#database');
    expect(await pendingSchemaChanges(stack.api.get(DataSource))).toEqual([]);
  });

  it('give every table an entity its lib registers, so the check above covers them all', async () => {
    const dataSource = stack.api.get(DataSource);
    const tables = await dataSource.query<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> $1`,
      [dataSource.options.migrationsTableName],
    );
    const registered = new Set(dataSource.entityMetadatas.map((metadata) => metadata.tableName));
    expect(tables.map((row) => row.table_name).filter((table) => !registered.has(table))).toEqual(
      [],
    );
    expect(tables.length).toBeGreaterThanOrEqual(33);
  });
});

function apiControllers(): Type[] {
  return [...stack.api.get(ModulesContainer).values()].flatMap((module) =>
    [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type),
  );
}

/** Every route handler of the controllers, found the way Nest finds them: up the prototype chain. */
function* routeHandlers(
  controllers: Type[],
): Generator<{ controller: Type; name: string; handler: object }> {
  const scanner = new MetadataScanner();
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as object;
      if (Reflect.getMetadata('path', handler) === undefined) continue;
      yield { controller, name: `${controller.name}.${name}`, handler };
    }
  }
}

/** Route handlers that declare neither @Auth nor @Public, on the handler or its class. */
function undeclaredHandlers(controllers: Type[]): string[] {
  return [...routeHandlers(controllers)]
    .filter(
      ({ controller, handler }) =>
        (Reflect.getMetadata(AUTH_METADATA, handler) ??
          Reflect.getMetadata(AUTH_METADATA, controller)) === undefined,
    )
    .map(({ name }) => name);
}

function mayWrite(handler: object): boolean {
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
  return ![RequestMethod.GET, RequestMethod.HEAD, RequestMethod.OPTIONS].includes(method);
}

function interceptorsOf(handler: object): unknown[] {
  return (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? []) as unknown[];
}

/** Routes that may write whose first interceptors are not the write conventions, in order. */
function writesWithoutConventions(controllers: Type[]): string[] {
  return [...routeHandlers(controllers)]
    .filter(({ handler }) => mayWrite(handler))
    .filter(({ handler }) => {
      const first = interceptorsOf(handler).slice(0, WRITE_INTERCEPTORS.length);
      return (
        first.length !== WRITE_INTERCEPTORS.length ||
        first.some((x, i) => x !== WRITE_INTERCEPTORS[i])
      );
    })
    .map(({ name }) => name);
}
