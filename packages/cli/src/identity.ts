import { accessToken, oauthForm, sdkClient } from './api.js';
import type { Resolved } from './config.js';

/** Who the CLI acts as: what `sas whoami` shows and `sas login` checks. */
export interface Identity {
  api_url: string;
  source: string;
  credential: 'api_key' | 'client_credentials';
  organization_id: string | null;
  mode: 'live' | 'test' | null;
  scopes: string[] | null;
  client_id?: string;
  key_id?: string;
  key_name?: string;
  expires_at?: string | null;
  /** What could not be found out, and why. */
  notes: string[];
}

/**
 * GET /v1/user/profile answers for people only, so:
 * - client credentials: a token, then RFC 7662 introspection of it by the
 *   client itself (`POST /oauth2/introspect`), which names the organisation,
 *   mode, client and scopes;
 * - an API key: its mode is in its prefix (`sk_live_`/`sk_test_`); its own
 *   record (name, id, scopes, expiry) is the one of `GET /v1/api-keys` whose
 *   `prefix` starts the key; the organisation is named by the first frame
 *   (`listen.ready`) of the event stream, the one read the API offers a key
 *   that carries it. Both need `organizations:read`; without it they are
 *   left out with a note.
 */
export async function identify(resolved: Resolved): Promise<Identity> {
  const base = { api_url: resolved.apiUrl, source: resolved.source };
  const credential = resolved.credential;
  if (credential.kind === 'client_credentials') {
    const token = await accessToken(resolved.apiUrl, credential);
    const introspection = await oauthForm<{
      active: boolean;
      scope?: string;
      client_id?: string;
      org_id?: string;
      mode?: 'live' | 'test';
    }>(`${resolved.apiUrl}/oauth2/introspect`, {
      token,
      client_id: credential.clientId,
      client_secret: credential.clientSecret,
    });
    return {
      ...base,
      credential: 'client_credentials',
      client_id: credential.clientId,
      organization_id: introspection.org_id ?? null,
      mode: introspection.mode ?? null,
      scopes: introspection.scope ? introspection.scope.split(' ') : null,
      notes: introspection.active ? [] : ['the token introspected as inactive'],
    };
  }
  const mode = /^sk_(live|test)_/.exec(credential.apiKey)?.[1] as 'live' | 'test' | undefined;
  const identity: Identity = {
    ...base,
    credential: 'api_key',
    organization_id: null,
    mode: mode ?? null,
    scopes: null,
    notes: [],
  };
  const client = await sdkClient(resolved);
  try {
    const keys = await client.apiKeys.list({ maxRetries: 1 }).toArray(1000);
    const own = keys.find((key) => !key.revoked_at && credential.apiKey.startsWith(key.prefix));
    if (own) {
      Object.assign(identity, {
        key_id: own.id,
        key_name: own.name,
        scopes: own.scopes,
        mode: own.mode as 'live' | 'test',
        expires_at: own.expires_at,
      });
    }
  } catch (error) {
    // No organizations:read: the key works, its record is out of reach. Anything else (401) is an answer.
    if ((error as { status?: number }).status !== 403) throw error;
    identity.notes.push(
      'the key lacks organizations:read: its scopes and organisation cannot be read',
    );
    return identity;
  }
  identity.organization_id = await organisationOfListen(resolved, identity.mode ?? 'test').catch(
    () => null,
  );
  if (identity.organization_id === null) identity.notes.push('the organisation could not be read');
  return identity;
}

/** The organisation named by `listen.ready` on /v2/events/listen (closed at once). */
async function organisationOfListen(resolved: Resolved, mode: string): Promise<string | null> {
  const { WebSocket } = await import('ws');
  const url = `${resolved.apiUrl.replace(/^http/, 'ws')}/v2/events/listen?mode=${mode}`;
  const headers =
    resolved.credential.kind === 'api_key' ? { 'x-api-key': resolved.credential.apiKey } : {};
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    const timer = setTimeout(() => done(null), 5_000);
    const done = (organisation: string | null) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      resolve(organisation);
    };
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type?: string; organization_id?: string };
      if (frame.type === 'listen.ready') done(frame.organization_id ?? null);
    });
    socket.on('error', () => done(null));
    socket.on('unexpected-response', () => done(null));
  });
}
