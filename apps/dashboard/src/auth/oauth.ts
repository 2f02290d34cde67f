// The authorization code + PKCE (S256) flow with the service's own public
// clients (one per mode). Tokens never leave memory; only the PKCE verifier,
// state and where to return to wait in sessionStorage across the redirect,
// and are removed as the browser comes back.
import { ALL_SCOPES } from '../scopes';

export type Mode = 'live' | 'test';

/** The clients the service registers for its dashboard (libs/auth/src/dashboard-clients.ts). */
export const CLIENT_IDS: Record<Mode, string> = {
  live: 'sas-dashboard',
  test: 'sas-dashboard-test',
};

export const CALLBACK_PATH = '/dashboard/callback';
const PENDING_KEY = 'sas.dashboard.pending';

export interface Tokens {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
  mode: Mode;
}

interface Pending {
  state: string;
  verifier: string;
  mode: Mode;
  returnTo: string;
}

export class SignInError extends Error {}

function randomText(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function redirectUri(): string {
  return `${location.origin}${CALLBACK_PATH}`;
}

/** Sends the browser to the authorization server; `forceLogin` asks for the password again. */
export async function beginSignIn(mode: Mode, returnTo: string, forceLogin = false): Promise<void> {
  const verifier = randomText();
  const state = randomText(16);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const pending: Pending = { state, verifier, mode, returnTo };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_IDS[mode],
    redirect_uri: redirectUri(),
    scope: ALL_SCOPES.join(' '),
    state,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  });
  if (forceLogin) params.set('prompt', 'login');
  location.assign(`/oauth2/authorize?${params}`);
}

/** The callback: checks the state, trades the code for tokens. */
export async function completeSignIn(url: URL): Promise<{ tokens: Tokens; returnTo: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : null;
  if (!pending || url.searchParams.get('state') !== pending.state) {
    throw new SignInError('This sign-in was not started here, or has expired. Sign in again.');
  }
  const error = url.searchParams.get('error');
  if (error) {
    throw new SignInError(url.searchParams.get('error_description') ?? error);
  }
  const tokens = await tokenRequest(pending.mode, {
    grant_type: 'authorization_code',
    code: url.searchParams.get('code') ?? '',
    redirect_uri: redirectUri(),
    code_verifier: pending.verifier,
  });
  return { tokens, returnTo: pending.returnTo };
}

/** A new access token and, the old one being spent, a new refresh token. */
export function refreshTokens(mode: Mode, refreshToken: string): Promise<Tokens> {
  return tokenRequest(mode, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** RFC 7009: the refresh token (and with it its grant) stops working. */
export async function revoke(mode: Mode, token: string): Promise<void> {
  await fetch('/oauth2/revoke', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token,
      token_type_hint: 'refresh_token',
      client_id: CLIENT_IDS[mode],
    }),
  });
}

async function tokenRequest(mode: Mode, form: Record<string, string>): Promise<Tokens> {
  const response = await fetch('/oauth2/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, client_id: CLIENT_IDS[mode] }),
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new SignInError(
      typeof body.error_description === 'string'
        ? body.error_description
        : `Signing in failed (HTTP ${response.status}).`,
    );
  }
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    expiresAt: Date.now() + Number(body.expires_in ?? 0) * 1000,
    mode,
  };
}

/** The claims of an access token (a JWT the API checks; read here only to show who is signed in). */
export function claimsOf(accessToken: string): { sub?: string; org_id?: string; scope?: string } {
  try {
    const payload = accessToken.split('.')[1] ?? '';
    return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as {
      sub?: string;
      org_id?: string;
      scope?: string;
    };
  } catch {
    return {};
  }
}
