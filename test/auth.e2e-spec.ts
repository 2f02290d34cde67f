import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  generateKeyPair,
  jwtVerify,
  SignJWT,
} from 'jose';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKeyService } from '#auth';
import { ALL_SCOPES, Scope } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization, type TestOrganization } from './support/factories.js';
import {
  BOOTSTRAP_CLIENT_ID,
  BOOTSTRAP_CLIENT_SECRET,
  startStack,
  type Stack,
} from './support/stack.js';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
});
afterAll(() => stack?.close());

const session = { type: 'remote_viewing', target: 'auth checks' };

describe('POST /oauth2/token (client_credentials)', () => {
  it('issues a token to the bootstrap client with every scope, exactly in the spec’s shape', async () => {
    const response = await client.post('/oauth2/token', {
      form: {
        grant_type: 'client_credentials',
        client_id: BOOTSTRAP_CLIENT_ID,
        client_secret: BOOTSTRAP_CLIENT_SECRET,
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: ALL_SCOPES.join(' '),
      issued_at: expect.any(Number),
    });
    expect(Math.abs(response.body.issued_at - Date.now() / 1000)).toBeLessThan(5);
  });

  it('issues a JWT that verifies against the published JWKS with iss = PUBLIC_URL', async () => {
    const token = await org.token([Scope.SessionsRead]);
    const jwks = await client.get('/.well-known/jwks.json');
    expect(jwks.body.keys[0]).not.toHaveProperty('d');
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body), {
      issuer: stack.baseUrl,
      audience: stack.baseUrl,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      scope: Scope.SessionsRead,
      mode: 'live',
      client_id: org.clientId,
      org_id: expect.stringMatching(/^org_/),
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    const metadata = await client.get('/.well-known/oauth-authorization-server');
    expect(metadata.body).toMatchObject({
      issuer: stack.baseUrl,
      token_endpoint: `${stack.baseUrl}/oauth2/token`,
      jwks_uri: `${stack.baseUrl}/.well-known/jwks.json`,
    });
  });

  it('accepts HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${org.clientId}:${org.clientSecret}`).toString('base64');
    const response = await client.post('/oauth2/token', {
      form: { grant_type: 'client_credentials' },
      headers: { authorization: `Basic ${basic}` },
    });
    expect(response.status).toBe(200);
  });

  it.each([
    ['a wrong secret', { client_secret: 'wrong' }, 401, 'invalid_client'],
    ['an unknown client', { client_id: 'nobody' }, 401, 'invalid_client'],
    ['no secret', { client_secret: undefined }, 401, 'invalid_client'],
    ['an unsupported grant', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ['no grant_type', { grant_type: undefined }, 400, 'invalid_request'],
    ['a scope the client lacks', { scope: 'remote-viewing:read superuser' }, 400, 'invalid_scope'],
  ])('refuses %s with an RFC 6749 error', async (_name, change, status, error) => {
    const form = {
      grant_type: 'client_credentials',
      client_id: org.clientId,
      client_secret: org.clientSecret,
      ...change,
    };
    const response = await client.post('/oauth2/token', {
      form: Object.fromEntries(Object.entries(form).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
    });
    expect(response.status).toBe(status);
    expect(response.body).toEqual({
      error,
      error_description: expect.any(String),
      // invalid_scope names the scope it refused
      ...(error === 'invalid_scope' ? { scope: 'superuser' } : {}),
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('gives the same answer for an unknown client as for a wrong secret', async () => {
    const unknown = await client.post('/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' },
    });
    const wrong = await client.post('/oauth2/token', {
      form: { grant_type: 'client_credentials', client_id: org.clientId, client_secret: 'x' },
    });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('refuses a JSON body with invalid_request', async () => {
    const response = await client.post('/oauth2/token', {
      json: { grant_type: 'client_credentials' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
  });
});

describe('signing-key rotation', () => {
  it('publishes a new key before it signs, and keeps verifying tokens of the old one', async () => {
    const keys = stack.api.get(SigningKeyService);
    const before = await org.token();
    const oldKid = decodeProtectedHeader(before).kid;

    const nextKid = await keys.rotate(60_000);
    const published = (await client.get('/.well-known/jwks.json')).body.keys.map(
      (key: { kid: string }) => key.kid,
    );
    expect(published).toEqual(expect.arrayContaining([oldKid, nextKid]));
    expect(decodeProtectedHeader(await org.token()).kid).toBe(oldKid);

    const activeKid = await keys.rotate(0);
    const after = await org.token();
    expect(decodeProtectedHeader(after).kid).toBe(activeKid);
    for (const token of [before, after]) {
      expect(
        (await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', { token })).status,
      ).toBe(404);
    }
  });
});

describe('401 versus 403', () => {
  it('401 without a credential, with WWW-Authenticate', async () => {
    const response = await client.post('/v1/sessions', { json: session });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHORIZED');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('401 for a malformed, forged or expired token', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const claims = {
      org_id: 'org_01m82sfbpbenftg57hv349pfkd',
      mode: 'live',
      scope: ALL_SCOPES.join(' '),
    };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'forged' })
      .setIssuer(stack.baseUrl)
      .setAudience(stack.baseUrl)
      .setSubject('x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    const noneAlg = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    for (const token of ['not-a-token', forged, noneAlg]) {
      const response = await client.post('/v1/sessions', { token, json: session });
      expect(response.status, token).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('403 naming the missing scope when the credential is valid but lacks it', async () => {
    const token = await org.token([Scope.SessionsRead]);
    const response = await client.post('/v1/sessions', { token, json: session });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { required_scopes: [Scope.SessionsWrite] },
    });
  });

  it('refuses a request that carries two different credentials', async () => {
    const token = await org.token();
    const apiKey = await org.apiKey();
    const response = await client.post('/v1/sessions', { token, apiKey, json: session });
    expect(response.status).toBe(401);
    expect(response.body.error.details.issue).toContain('two different credentials');
  });

  it.each(['Authorization', 'X-API-Key'])(
    'refuses a request with two %s headers, whichever comes first',
    async (header) => {
      const key = await org.apiKey([Scope.SessionsRead]);
      const value = header === 'Authorization' ? `Bearer ${key}` : key;
      // fetch would merge the two headers; a raw request keeps them apart, as an attacker would.
      const { status, body } = await rawRequest(
        `GET /v1/sessions HTTP/1.1\r\nHost: x\r\n${header}: ${value}\r\n${header}: not-the-same\r\nConnection: close\r\n\r\n`,
      );
      expect(status).toBe(401);
      expect(JSON.parse(body).error.details.issue).toMatch(/more than one .* header/i);
    },
  );
});

/** Sends a request byte for byte and returns its status and body. */
async function rawRequest(text: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(stack.baseUrl);
  const answer = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written, not ended: Node drops a request whose client half-closes before the answer
    // (httpAllowHalfOpen is off), and every request is counted in Redis before it is answered.
    // `Connection: close` ends the socket once the answer is sent.
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body };
}

describe('API keys', () => {
  it('creates a key (shown once, hashed at rest) that works as X-API-Key and as a Bearer credential', async () => {
    const token = await org.token();
    const created = await client.post('/v1/api-keys', {
      token,
      json: { name: 'ci', scopes: [Scope.SessionsRead, Scope.SessionsWrite] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      name: 'ci',
      mode: 'live',
      expires_at: null,
      revoked_at: null,
    });
    const key: string = created.body.key;
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(key.startsWith(created.body.prefix)).toBe(true);
    const rows = await stack.api
      .get(DataSource)
      .query('SELECT * FROM api_keys WHERE display_prefix = $1', [created.body.prefix]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(key);
    expect(rows[0].secret_hash).toEqual(createHash('sha256').update(key).digest());

    const viaHeader = await client.post('/v1/sessions', { apiKey: key, json: session });
    expect(viaHeader.status).toBe(201);
    const viaBearer = await client.get(`/v1/sessions/${viaHeader.body.session_id}`, { token: key });
    expect(viaBearer.status).toBe(200);
  });

  it('never grants more than the creator holds', async () => {
    const token = await org.token([Scope.OrganizationsWrite, Scope.SessionsRead]);
    const response = await client.post('/v1/api-keys', {
      token,
      json: { name: 'too much', scopes: [Scope.SessionsWrite] },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe('scopes');
  });

  it('limits the key to its scopes and mode', async () => {
    const token = await org.token();
    const created = await client.post('/v1/api-keys', {
      token,
      json: { name: 'read only', scopes: [Scope.SessionsRead], mode: 'test' },
    });
    expect(created.body.key).toMatch(/^sk_test_/);
    const response = await client.post('/v1/sessions', { apiKey: created.body.key, json: session });
    expect(response.status).toBe(403);
  });

  it('needs an OAuth access token: an API key cannot create keys', async () => {
    const apiKey = await org.apiKey();
    const response = await client.post('/v1/api-keys', {
      apiKey,
      json: { name: 'x', scopes: [Scope.SessionsRead] },
    });
    expect(response.status).toBe(403);
  });

  it('rejects malformed keys and keys with a bad checksum as 401', async () => {
    const key = await org.apiKey();
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const bad of ['sk_live_short', flipped, 'sk_prod_' + key.slice(8)]) {
      const response = await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', {
        apiKey: bad,
      });
      expect(response.status, bad).toBe(401);
    }
  });

  it('stops working once expired', async () => {
    const token = await org.token();
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await client.post('/v1/api-keys', {
      token,
      json: { name: 'short', scopes: [Scope.SessionsRead], expires_at: soon },
    });
    expect(created.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const response = await client.get('/v1/sessions/sess_01m82sfbpbenftg57hv349pfkd', {
      apiKey: created.body.key,
    });
    expect(response.status).toBe(401);
    expect(response.body.error.details.issue).toBe('API key expired');
  });

  it.each([
    [{ name: '', scopes: [Scope.SessionsRead] }, 'name'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['root'] }, 'scopes'],
    [{ name: 'x', scopes: [Scope.SessionsRead], expires_at: 'tomorrow' }, 'expires_at'],
    [{ name: 'x', scopes: [Scope.SessionsRead], expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ name: 'x', scopes: [Scope.SessionsRead], mode: 'prod' }, 'mode'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await client.post('/v1/api-keys', { token: await org.token(), json: body });
    expect(response.status).toBe(400);
    expect(response.body.error.details.field).toBe(field);
  });
});
