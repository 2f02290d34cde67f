import { documentIdempotency } from './http/idempotency/idempotency-openapi.js';
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { ALL_SCOPES, SCOPE_DESCRIPTIONS } from '#common';
import { docsHeaders } from './http/docs-headers.js';
import type { ServedBases } from './http/sandbox.js';
import { MAX_BODY_DEPTH } from './http/input-guards.js';
import { MAX_LIST_OFFSET } from './http/v1-list.dto.js';
import { documentPublicOperations } from './http/openapi-public-operations.js';
import { documentErrorExamples } from './http/openapi-error-examples.js';
import { documentRequestLimits } from './http/openapi-request-limits.js';
import { documentRequestRules } from './http/openapi-request-rules.js';
import { authorizationServerPaths } from './oauth/authorization-server/openapi-paths.js';

/** The OpenAPI document of both versions, served at /docs-json with Swagger UI at /docs. */
export function buildOpenApiDocument(
  app: INestApplication,
  { publicUrl, sandboxUrl }: ServedBases,
): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Session and Analysis Service')
    .setDescription(
      'Sessions, target analyses and dowsing queries with searchable history, signed webhooks and live updates. ' +
        'Version 1 is under `/v1`, version 2 under `/v2`. Test-mode credentials reach the sandbox: the same API with separate data ' +
        `and the deterministic \`simulated\` engine, at its own base URL ${sandboxUrl} (\`/v1\`, \`/v2\`), which refuses live-mode credentials, ` +
        'or at the live base URL like any credential. Errors: `{"error": {"code", "message", "details", "request_id"}}`; ' +
        `codes are explained at ${publicUrl}/docs/errors. ` +
        `Input bounds: JSON bodies nest at most ${MAX_BODY_DEPTH} levels; no text (body, query or path) may hold the NUL character (U+0000); ` +
        `integer query parameters are plain decimal digits within their documented range (v1 \`offset\` at most ${MAX_LIST_OFFSET.toLocaleString('en')}); ` +
        'request bodies take only the fields their schema lists. While PostgreSQL cannot be reached, requests answer 503 SERVICE_UNAVAILABLE with `Retry-After`.',
    )
    .setVersion('1.0')
    .addServer(publicUrl, 'Live: live-mode and test-mode credentials')
    .addServer(sandboxUrl, 'Sandbox: test-mode credentials only')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT or API key',
        description: `OAuth 2.0 access token from POST /oauth2/token, or an API key. Scopes: ${ALL_SCOPES.join(', ')}`,
      },
      'bearer',
    )
    // Swagger UI's Authorize dialog gets the token itself (client credentials): no curl needed.
    .addOAuth2(
      {
        type: 'oauth2',
        description:
          'Client credentials: the client id and secret of a confidential client (`POST /v1/oauth-clients`, or the bootstrap client); the token is fetched from the token endpoint and sent as `Authorization: Bearer`.',
        flows: {
          clientCredentials: {
            tokenUrl: `${publicUrl}/oauth2/token`,
            scopes: { ...SCOPE_DESCRIPTIONS },
          },
        },
      },
      'oauth2',
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'An API key (sk_live_… or sk_test_…)',
      },
      'api_key',
    )
    .build();
  const document = SwaggerModule.createDocument(app, config);
  documentIdempotency(document);
  const authorizationServer = authorizationServerPaths();
  document.paths = { ...authorizationServer, ...document.paths };
  documentPublicOperations(app, document, authorizationServer);
  documentRequestRules(app, document);
  documentRequestLimits(document);
  documentErrorExamples(document, publicUrl);
  return document;
}

export function mountOpenApi(
  app: INestApplication,
  document: OpenAPIObject,
  bases: ServedBases,
): void {
  app.use('/docs', docsHeaders(bases));
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Session and Analysis Service — API',
    swaggerOptions: { persistAuthorization: true },
  });
}
