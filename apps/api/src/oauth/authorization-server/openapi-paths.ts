import type { OpenAPIObject } from '@nestjs/swagger';
import { ACCESS_TOKEN_TTL_SECONDS } from '#auth';

type Paths = OpenAPIObject['paths'];
type ParameterObject = { name: string; in: 'query' | 'path'; required: boolean; schema: Schema };
type Schema = Record<string, unknown>;

const FORM = 'application/x-www-form-urlencoded';
const TAG = 'OAuth 2.0';

const oauthError = (codes: string[]): Schema => ({
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', enum: codes },
    error_description: { type: 'string' },
  },
});

const clientAuthFields: Record<string, Schema> = {
  client_id: { type: 'string', description: 'Or send HTTP Basic credentials' },
  client_secret: { type: 'string', description: 'Confidential clients; or HTTP Basic' },
};

const tooManyAttempts = {
  description:
    'Too many requests from this client (TOKEN_RATE_PER_CLIENT a minute) or address (TOKEN_RATE_PER_ADDRESS), or too many failed attempts for this client or from this address (see `Retry-After`); the answer is the same whether or not the client exists',
  headers: { 'Retry-After': { schema: { type: 'integer' } } },
  content: { 'application/json': { schema: oauthError(['temporarily_unavailable']) } },
};

const databaseUnavailable = {
  description:
    'The authorization server cannot reach its database right now; nothing was done: retry after `Retry-After` seconds',
  headers: { 'Retry-After': { schema: { type: 'integer' } } },
  content: { 'application/json': { schema: oauthError(['temporarily_unavailable']) } },
};

function formBody(properties: Record<string, Schema>, required: string[]) {
  return {
    required: true,
    content: { [FORM]: { schema: { type: 'object', required, properties } } },
  };
}

function json(description: string, schema: Schema) {
  return { description, content: { 'application/json': { schema } } };
}

const authorizeQuery: ParameterObject[] = (
  [
    ['response_type', true, { type: 'string', enum: ['code'] }],
    ['client_id', true, { type: 'string' }],
    ['redirect_uri', true, { type: 'string', format: 'uri', description: 'Exactly as registered' }],
    [
      'scope',
      false,
      { type: 'string', description: 'Space-separated scopes', example: 'remote-viewing:read' },
    ],
    ['state', false, { type: 'string', description: 'Echoed back on the redirect' }],
    [
      'code_challenge',
      false,
      { type: 'string', description: 'PKCE (required for public clients)' },
    ],
    ['code_challenge_method', false, { type: 'string', enum: ['S256'] }],
  ] as const
).map(([name, required, schema]) => ({ name, in: 'query', required, schema }));

/**
 * The routes oidc-provider answers (it is mounted as Express middleware, so
 * Nest's scanner never sees them), described by hand in the same document.
 */
export function authorizationServerPaths(): Paths {
  const authorize = {
    tags: [TAG],
    summary: 'Authorization endpoint (browser)',
    description:
      'Starts the authorization code flow: shows the sign-in page, then the consent page, then redirects to `redirect_uri` with `code`, `state` and `iss` (RFC 9207). PKCE with `S256` is required for public clients. Errors about the client or redirect URI are shown as a page; every other error is sent to the redirect URI.',
    parameters: authorizeQuery,
    responses: {
      '303': { description: 'To the sign-in or consent page, or back to `redirect_uri`' },
      '400': {
        description: 'Unknown client or unregistered redirect URI (an HTML page)',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  };
  return {
    '/oauth2/token': {
      post: {
        operationId: 'AuthorizationServer_token',
        tags: [TAG],
        summary: 'Get an access token',
        description:
          'RFC 6749 token endpoint, form-encoded. Grants: `client_credentials` (scope defaults to all of the client’s scopes), `authorization_code` (with `code_verifier` for PKCE), `refresh_token` (refresh tokens rotate; presenting a used one revokes the whole grant). Errors use the RFC 6749 form. Access tokens are RFC 9068 JWTs (ES256, `typ` `at+jwt`).',
        requestBody: formBody(
          {
            grant_type: {
              type: 'string',
              enum: ['client_credentials', 'authorization_code', 'refresh_token'],
            },
            ...clientAuthFields,
            scope: { type: 'string', example: 'remote-viewing:read remote-viewing:write' },
            code: { type: 'string', description: 'authorization_code' },
            redirect_uri: { type: 'string', description: 'authorization_code' },
            code_verifier: { type: 'string', description: 'authorization_code with PKCE' },
            refresh_token: { type: 'string', description: 'refresh_token' },
          },
          ['grant_type'],
        ),
        responses: {
          '200': json('The token response of the spec', {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'scope', 'issued_at'],
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string', enum: ['Bearer'] },
              expires_in: { type: 'integer', example: ACCESS_TOKEN_TTL_SECONDS },
              scope: { type: 'string' },
              issued_at: { type: 'integer', description: 'Unix seconds' },
              refresh_token: { type: 'string', description: 'Code and refresh flows only' },
            },
          }),
          '400': json(
            'OAuth error',
            oauthError([
              'invalid_request',
              'invalid_grant',
              'unauthorized_client',
              'unsupported_grant_type',
              'invalid_scope',
              'invalid_target',
            ]),
          ),
          '401': json('Client authentication failed', oauthError(['invalid_client'])),
          '429': tooManyAttempts,
          '503': databaseUnavailable,
        },
      },
    },
    '/oauth2/authorize': { get: { ...authorize, operationId: 'AuthorizationServer_authorize' } },
    '/oauth2/authorize/{uid}': {
      get: {
        operationId: 'AuthorizationServer_resume',
        tags: [TAG],
        summary: 'Continue an authorization request after sign-in and consent (browser)',
        description:
          'Reached only by redirect from the sign-in and consent pages; bound to a cookie.',
        parameters: [{ name: 'uid', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '303': {
            description: 'To `redirect_uri` with `code`, `state` and `iss`, or with an error',
          },
          '400': { description: 'No such request in this browser (an HTML page)' },
        },
      },
    },
    '/oauth/authorize': {
      get: {
        ...authorize,
        operationId: 'AuthorizationServer_authorizeAlias',
        summary: 'Authorization endpoint (alias of /oauth2/authorize)',
        responses: { '308': { description: 'To /oauth2/authorize with the same query' } },
      },
    },
    '/oauth2/revoke': {
      post: {
        operationId: 'AuthorizationServer_revoke',
        tags: [TAG],
        summary: 'Revoke a refresh token (RFC 7009)',
        description:
          'Revoking a refresh token ends its grant: its refresh tokens and its access tokens stop working at once. A client revokes only its own tokens; any other token — unknown, expired, already revoked or another client’s — is answered 200 the same way and left as it is, so the answer never tells whether a token is live (RFC 7009 §2.2). Anything shaped like a JWT answers `unsupported_token_type`, whether real or not, as RFC 7009 allows (access tokens are self-contained JWTs that live at most an hour). Failed client authentication is 401.',
        requestBody: formBody(
          {
            token: { type: 'string' },
            token_type_hint: { type: 'string', enum: ['refresh_token', 'access_token'] },
            ...clientAuthFields,
          },
          ['token'],
        ),
        responses: {
          '200': {
            description:
              'Revoked, or not a token of this client (unknown, expired or another client’s): the same answer (RFC 7009 §2.2)',
          },
          '400': json('OAuth error', oauthError(['invalid_request', 'unsupported_token_type'])),
          '401': json('Client authentication failed', oauthError(['invalid_client'])),
          '429': tooManyAttempts,
          '503': databaseUnavailable,
        },
      },
    },
    '/oauth2/introspect': {
      post: {
        operationId: 'AuthorizationServer_introspect',
        tags: [TAG],
        summary: 'Introspect a token (RFC 7662)',
        description:
          'For access tokens and refresh tokens. A confidential client sees tokens of its own organisation; any other token is `{"active": false}`.',
        requestBody: formBody(
          {
            token: { type: 'string' },
            token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] },
            ...clientAuthFields,
          },
          ['token'],
        ),
        responses: {
          '200': json('Introspection response', {
            type: 'object',
            required: ['active'],
            properties: {
              active: { type: 'boolean' },
              scope: { type: 'string' },
              client_id: { type: 'string' },
              sub: { type: 'string' },
              token_type: { type: 'string' },
              exp: { type: 'integer' },
              iat: { type: 'integer' },
              iss: { type: 'string' },
              aud: {},
              jti: { type: 'string' },
              org_id: { type: 'string' },
              mode: { type: 'string', enum: ['live', 'test'] },
            },
          }),
          '400': json('OAuth error', oauthError(['invalid_request'])),
          '401': json('Client authentication failed', oauthError(['invalid_client'])),
          '429': tooManyAttempts,
          '503': databaseUnavailable,
        },
      },
    },
  };
}
