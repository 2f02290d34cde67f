import { Get, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MAX_PASSWORD_LENGTH, UsersService } from '#auth';
import { SsoSignInService, type SsoSignInResult } from '#sso';
import { Public } from '../../http/auth.decorator.js';
import { formText, InteractionPages, Interactions, type OpenInteraction } from './interactions.js';
import { renderDirectorySignInPage } from './pages.js';

/** What each SSO refusal shows: status and words (never which of password or account was wrong). */
const SSO_REFUSALS: Record<Exclude<SsoSignInResult, { ok: true }>['reason'], [number, string]> = {
  invalid_credentials: [401, 'The email address or password is not right.'],
  unavailable: [503, 'Your organisation’s directory could not be reached. Try again in a moment.'],
  other_organization: [403, 'This email address belongs to an account of another organisation.'],
  disabled: [403, 'This account is disabled. Ask your administrator.'],
  foreign_domain: [
    403,
    'Your identity provider vouched for an email address outside the domains it signs in. Ask your administrator.',
  ],
  saml_refused: [
    403,
    'Your identity provider’s answer could not be accepted. Try again, or ask your administrator.',
  ],
  not_provisioned: [
    403,
    'You have no account here yet, and this sign-in does not create one. Ask your administrator.',
  ],
};

/**
 * "Sign in with SSO" on the sign-in page: the work email's domain picks the
 * organisation's connection. An LDAP directory asks for its password here;
 * a SAML IdP gets the browser with a signed AuthnRequest and sends it back
 * through the connection's ACS (SamlAcsController), which hands its checked
 * result to `GET …/sso/saml`. Every way ends in the same consent page.
 */
@InteractionPages('oauth2/interaction/:uid/sso')
export class SsoInteractionController {
  constructor(
    private readonly interactions: Interactions,
    private readonly sso: SsoSignInService,
    private readonly users: UsersService,
  ) {}

  @Post()
  @Public()
  @ApiOperation({
    summary: 'Sign in with SSO: the work email picks the organisation’s IdP or directory',
  })
  @ApiResponse({ status: 200, description: 'An LDAP directory: its password page' })
  @ApiResponse({ status: 303, description: 'A SAML IdP: to it, with a signed AuthnRequest' })
  @ApiResponse({
    status: 400,
    description: 'No SSO connection for the email’s domain: the sign-in page, with why',
  })
  async start(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, 'login');
    if (!open) return;
    const email = formText(request, 'email').trim();
    const connection = email === '' ? null : await this.sso.connectionForEmail(email);
    if (connection === null) {
      const domain = email.split('@')[1];
      const error = domain
        ? `No single sign-on is set up for ${domain}. Sign in with your password, or ask your administrator.`
        : 'Enter your work email address.';
      return this.interactions.page(
        response,
        400,
        this.interactions.signInPage(open, email, error),
      );
    }
    if (connection.config.kind === 'ldap') {
      return this.interactions.page(response, 200, directoryPage(open, connection.name, email));
    }
    // To the IdP; its answer comes back to the ACS with this interaction as RelayState.
    response.redirect(303, await this.sso.samlAuthorizeUrl(connection, open.details.uid));
  }

  @Post('ldap')
  @Public()
  @ApiOperation({ summary: 'Submit the directory password of an LDAP connection' })
  @ApiResponse({ status: 303, description: 'Signed in: back to the authorization endpoint' })
  @ApiResponse({
    status: 401,
    description: 'Wrong email or password: the page again, with the error',
  })
  @ApiResponse({
    status: 403,
    description:
      'No account this connection may sign in (another organisation’s, disabled, or not provisioned)',
  })
  @ApiResponse({ status: 429, description: 'Too many attempts, as for local passwords' })
  @ApiResponse({ status: 503, description: 'The directory could not be reached' })
  async directory(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, 'login');
    if (!open) return;
    const email = formText(request, 'email').trim();
    const password = formText(request, 'password');
    const address = request.ip ?? 'unknown';
    const connection = email === '' ? null : await this.sso.connectionForEmail(email);
    if (connection === null || connection.config.kind !== 'ldap') {
      const error = 'No directory signs in this email address. Sign in with your password.';
      return this.interactions.page(
        response,
        400,
        this.interactions.signInPage(open, email, error),
      );
    }
    const again = (status: number, error: string) =>
      this.interactions.page(response, status, directoryPage(open, connection.name, email, error));
    const busy = await this.interactions.tooManyFromAddress(response, address);
    if (busy !== null) return again(429, busy);
    if (password === '') return again(400, 'Enter your directory password.');
    // The same limits as local passwords: a directory is no less worth guessing at.
    const locked = await this.interactions.tooManyFailures(response, email, address, 'ldap');
    if (locked !== null) return again(429, locked);
    const result =
      password.length > MAX_PASSWORD_LENGTH
        ? ({ ok: false, reason: 'invalid_credentials', detail: 'too long' } as const)
        : await this.sso.ldapSignIn(connection, email, password);
    if (!result.ok) {
      await this.interactions.recordFailure(email, address, 'ldap', result.reason);
      const [status, message] = SSO_REFUSALS[result.reason];
      return again(status, message);
    }
    await this.interactions.recordSuccess(email, address);
    await this.interactions.finishLogin(open, request, response, result.user, 'ldap', ['pwd']);
  }

  @Get('saml')
  @Public()
  @ApiOperation({
    summary: 'Where the SAML ACS sends the browser back: finishes the sign-in it checked',
  })
  @ApiResponse({ status: 303, description: 'Signed in: back to the authorization endpoint' })
  @ApiResponse({
    status: 403,
    description: 'No account this connection may sign in, or the IdP’s response was refused',
  })
  async saml(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, 'login');
    if (!open) return;
    const result = await this.sso.takeSamlResult(open.details.uid);
    if (result === null) {
      const error = 'The sign-in through your identity provider did not complete. Try again.';
      return this.interactions.page(
        response,
        400,
        this.interactions.signInPage(open, undefined, error),
      );
    }
    if (!result.ok) {
      // Recorded by the ACS, which knew the connection it came through.
      const [status, message] = SSO_REFUSALS[result.reason];
      return this.interactions.page(
        response,
        status,
        this.interactions.signInPage(open, undefined, message),
      );
    }
    const user = await this.users.findById(result.userId);
    if (!user) {
      // Gone since the ACS vouched for it: no person, so no organisation to record it under.
      const [status, message] = SSO_REFUSALS.not_provisioned;
      return this.interactions.page(
        response,
        status,
        this.interactions.signInPage(open, undefined, message),
      );
    }
    await this.interactions.finishLogin(open, request, response, user, 'saml');
  }
}

function directoryPage(
  open: OpenInteraction,
  connectionName: string,
  email: string,
  error?: string,
): string {
  const { details, requester } = open;
  return renderDirectorySignInPage({
    action: `/oauth2/interaction/${details.uid}/sso/ldap`,
    abortAction: `/oauth2/interaction/${details.uid}/abort`,
    clientName: requester.clientName,
    organizationName: requester.organizationName,
    connectionName,
    email,
    error,
  });
}
