import * as oauth from 'oauth4webapi';
import { Scope } from '#common';
import type { TestClient } from './client.js';
import {
  BOOTSTRAP_ADMIN_EMAIL,
  BOOTSTRAP_ADMIN_PASSWORD,
  BOOTSTRAP_CLIENT_ID,
  BOOTSTRAP_CLIENT_SECRET,
} from './stack.js';

/** Where registered test clients are sent back to; nothing listens there, the tests read the URL. */
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export type RegisteredClient = oauth.Client & {
  client_secret?: string;
  scope: string;
};

/** An access token of the operator organisation (the bootstrap client), where the local admin lives. */
export async function operatorToken(client: TestClient): Promise<string> {
  const response = await client.post('/oauth2/token', {
    form: {
      grant_type: 'client_credentials',
      client_id: BOOTSTRAP_CLIENT_ID,
      client_secret: BOOTSTRAP_CLIENT_SECRET,
    },
  });
  return response.body.access_token as string;
}

/** Registers an authorization-code client in the operator organisation through /v1/oauth-clients. */
export async function registerCodeClient(
  client: TestClient,
  token: string,
  options: { public: boolean; scope?: string; redirectUris?: string[] },
): Promise<RegisteredClient> {
  const response = await client.post('/v1/oauth-clients', {
    token,
    json: {
      client_name: options.public ? 'Test single-page app' : 'Test web app',
      redirect_uris: options.redirectUris ?? [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: options.public ? 'none' : 'client_secret_basic',
      scope: options.scope ?? `${Scope.SessionsRead} ${Scope.Profile} ${Scope.Email}`,
    },
  });
  if (response.status !== 201) throw new Error(`client registration failed: ${response.text}`);
  return response.body as RegisteredClient;
}

/** The authorization server's metadata, read and checked by oauth4webapi. */
export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl);
  const response = await oauth.discoveryRequest(issuer, {
    algorithm: 'oauth2',
    [oauth.allowInsecureRequests]: true,
  });
  return oauth.processDiscoveryResponse(issuer, response);
}

/** A browser's cookie store, just enough for the sign-in and consent round trips. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  async fetch(
    url: URL | string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = { ...init.headers, cookie: this.header() };
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      body,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(';');
      const separator = pair!.indexOf('=');
      const name = pair!.slice(0, separator).trim();
      const value = pair!.slice(separator + 1).trim();
      const expired = attributes.some((attribute) =>
        /^\s*expires=Thu, 01 Jan 1970/i.test(attribute),
      );
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  private header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export interface Person {
  email: string;
  password: string;
  /** What the person does on the consent page. */
  decision?: 'allow' | 'deny';
}

export const ADMIN: Person = { email: BOOTSTRAP_ADMIN_EMAIL, password: BOOTSTRAP_ADMIN_PASSWORD };

/**
 * Follows an authorization request the way a browser would, signing in and
 * deciding on the way, and returns the URL the server finally sends the
 * browser to (the client's redirect URI, with a code or an error).
 */
export async function authorizeAs(
  baseUrl: string,
  authorizationUrl: URL,
  person: Person = ADMIN,
  jar = new CookieJar(),
): Promise<URL> {
  let response = await jar.fetch(authorizationUrl);
  for (let step = 0; step < 12; step += 1) {
    const location = response.headers.get('location');
    if (!location) {
      throw new Error(`expected a redirect, got ${response.status}: ${await response.text()}`);
    }
    const next = new URL(location, baseUrl);
    if (next.origin !== new URL(baseUrl).origin) return next;
    if (!next.pathname.startsWith('/oauth2/interaction/')) {
      response = await jar.fetch(next);
      continue;
    }
    const page = await (await jar.fetch(next)).text();
    if (page.includes('name="password"')) {
      response = await jar.fetch(`${next.href}/login`, {
        method: 'POST',
        form: { email: person.email, password: person.password },
      });
      if (response.status === 401) throw new Error('sign-in refused');
    } else {
      const action = person.decision === 'deny' ? 'abort' : 'confirm';
      response = await jar.fetch(`${next.href}/${action}`, { method: 'POST' });
    }
  }
  throw new Error('too many redirects');
}

/** An authorization request URL with PKCE, and what the client must remember to finish it. */
export async function authorizationRequest(
  as: oauth.AuthorizationServer,
  client: RegisteredClient,
  extra: Record<string, string> = {},
) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: client.scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url, codeVerifier, state };
}

export function clientAuthentication(client: RegisteredClient): oauth.ClientAuth {
  return client.client_secret ? oauth.ClientSecretBasic(client.client_secret) : oauth.None();
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The code a client's callback carries, checked and exchanged for tokens (a 200 token response). */
export async function exchangeCallback(
  as: oauth.AuthorizationServer,
  client: RegisteredClient,
  callback: URL,
  request: { state: string; codeVerifier: string },
): Promise<Record<string, string>> {
  const params = oauth.validateAuthResponse(as, client, callback, request.state);
  const exchanged = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuthentication(client),
    params,
    REDIRECT_URI,
    request.codeVerifier,
    insecure,
  );
  const tokens = (await exchanged.json()) as Record<string, string>;
  if (exchanged.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(tokens)}`);
  return tokens;
}
