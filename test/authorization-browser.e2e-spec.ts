import { createServer, type Server } from 'node:http';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scope } from '#common';
import {
  ADMIN,
  authorizationRequest,
  clientAuthentication,
  discover,
  insecure,
  operatorToken,
  registerCodeClient,
  type RegisteredClient,
} from './support/authorization.js';
import { launchChromium } from './support/browser.js';
import { TestClient } from './support/client.js';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
let client: TestClient;
let browser: Browser;
let as: oauth.AuthorizationServer;
let app: RegisteredClient;
/** The client application's real callback endpoint: it records what the browser brings back. */
let callbackServer: Server;
let redirectUri: string;
const callbacks: URL[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  client = await TestClient.for(stack);
  as = await discover(stack.baseUrl);
  callbackServer = createServer((request, response) => {
    // Only the redirect itself: the browser also asks this server for /favicon.ico.
    const url = new URL(request.url!, redirectUri);
    if (url.pathname === new URL(redirectUri).pathname) callbacks.push(url);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Signed in</h1>');
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
  const { port } = callbackServer.address() as { port: number };
  redirectUri = `http://127.0.0.1:${port}/callback`;
  app = await registerCodeClient(client, await operatorToken(client), {
    public: true,
    scope: `${Scope.SessionsRead} ${Scope.Profile}`,
    redirectUris: [redirectUri],
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  callbackServer?.close();
  await stack?.close();
});

describe('the authorization code + PKCE flow in a real browser', () => {
  it('signs in and consents with the keyboard, and the client gets a working token', async () => {
    const { url, codeVerifier, state } = await authorizationRequest(as, app, {
      redirect_uri: redirectUri,
    });

    const page = await browser.newPage();
    await page.goto(url.href);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await page.getByText('Test single-page app').count()).toBeGreaterThan(0);

    // A wrong password first: the error is announced (role=alert) and the form comes back.
    await page.getByLabel('Email address').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByLabel('Password').press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The email address or password is not right.');
    expect(await page.getByLabel('Email address').inputValue()).toBe(ADMIN.email);

    // Then the keyboard only: the email field has focus on load, Tab moves to the password.
    expect(await page.locator(':focus').getAttribute('id')).toBe('email');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');

    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Allow Test single-page app access?');
    const scopes = await page.getByRole('listitem').allTextContents();
    expect(scopes.join('\n')).toContain(Scope.SessionsRead);
    expect(scopes.join('\n')).toContain(Scope.Profile);
    // Allow is the first control on the page: Tab reaches it, Enter presses it.
    await page.keyboard.press('Tab');
    expect(await page.locator(':focus').textContent()).toBe('Allow');
    await page.keyboard.press('Enter');

    await page.waitForURL((current) => current.href.startsWith(redirectUri));
    const callback = callbacks.at(-1)!;
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
    const params = oauth.validateAuthResponse(as, app, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      app,
      clientAuthentication(app),
      params,
      redirectUri,
      codeVerifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, app, response);
    const profile = await client.get('/v1/user/profile', { token: tokens.access_token });
    expect(profile.status).toBe(200);
    expect(profile.body).not.toHaveProperty('email'); // the email scope was not granted
    await page.close();
  });

  it('shows an error page, not a redirect, for an unregistered redirect URI', async () => {
    const page = await browser.newPage();
    const { url } = await authorizationRequest(as, app, {
      redirect_uri: 'https://attacker.example/callback',
    });
    const response = await page.goto(url.href);
    expect(response?.status()).toBe(400);
    expect(page.url()).toContain('/oauth2/authorize');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('redirect_uri');
    await page.close();
  });
});
