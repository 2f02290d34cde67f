import { Controller, Get, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { MAX_PASSWORD_LENGTH, UsersService } from '#auth';
import { AppSettings } from '#config';
import { parsePublicId, toPublicId } from '#common';
import type { UserEntity } from '#auth';
import { OrganizationsService } from '#organizations';
import { SsoSignInService, type SsoSignInResult } from '#sso';
import { Public } from '../../http/auth.decorator.js';
import { EndpointRateLimiter } from './endpoint-rate-limiter.js';
import { AttemptLimiter, SIGN_IN_POLICY } from './attempt-limiter.js';
import { AuthorizationServer } from './authorization-server.js';
import { clientOrganizationId } from './oidc-adapter.js';
import {
  PAGE_HEADERS,
  renderConsentPage,
  renderDirectorySignInPage,
  renderErrorPage,
  renderOtherOrganizationPage,
  renderSignInPage,
} from './pages.js';

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The application asking, as the pages name it: its name and the organisation that registered it. */
interface Requester {
  clientName: string;
  organizationId: string | null;
  organizationName: string;
}

/**
 * The sign-in and consent pages of the authorization code flow. oidc-provider
 * sends the browser here (/oauth2/interaction/{uid}) with a cookie bound to
 * that uid, and takes it back once the user has signed in and decided.
 *
 * A user can allow only an application of their own organisation: a token
 * carries the user's organisation, so a client registered elsewhere would
 * otherwise reach it. The pages name the organisation that registered the
 * application, and an account of another one is shown why it cannot go on.
 */
@ApiTags('OAuth 2.0')
@ApiProduces('text/html')
@ApiParam({
  name: 'uid',
  description: 'The interaction, bound to a cookie set by /oauth2/authorize',
})
@ApiResponse({ status: 400, description: 'No such interaction in this browser (an HTML page)' })
@Controller({ path: 'oauth2/interaction/:uid', version: VERSION_NEUTRAL })
export class InteractionController {
  constructor(
    private readonly server: AuthorizationServer,
    private readonly users: UsersService,
    private readonly limiter: AttemptLimiter,
    private readonly rate: EndpointRateLimiter,
    private readonly settings: AppSettings,
    private readonly organizations: OrganizationsService,
    private readonly sso: SsoSignInService,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Sign-in or consent page of an authorization request (browser)' })
  @ApiResponse({ status: 200, description: 'The sign-in page, or the consent page once signed in' })
  async show(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    const requester = await this.requester(provider, details);
    if (details.prompt.name === 'login') {
      return this.page(response, 200, this.signInPage(details, requester));
    }
    const user = await this.signedInUser(details);
    if (!belongsTo(user, requester)) {
      return this.page(response, 403, this.otherOrganizationPage(details, requester, user));
    }
    return this.page(response, 200, this.consentPage(details, requester, user));
  }

  @Post('login')
  @Public()
  @ApiOperation({ summary: 'Submit the sign-in form (email, password)' })
  @ApiResponse({ status: 303, description: 'Signed in: back to the authorization endpoint' })
  @ApiResponse({
    status: 401,
    description: 'Wrong email or password: the page again, with the error',
  })
  @ApiResponse({
    status: 429,
    description:
      'Too many sign-in attempts from this address (SIGN_IN_RATE_PER_ADDRESS a minute), or too many failed ones for this account or address',
  })
  async signIn(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    if (details.prompt.name !== 'login') return this.redirectToInteraction(response, details);
    const form = (request.body ?? {}) as Record<string, unknown>;
    const email = typeof form.email === 'string' ? form.email.trim() : '';
    const password = typeof form.password === 'string' ? form.password : '';
    const address = request.ip ?? 'unknown';
    const requester = await this.requester(provider, details);
    const again = (status: number, error: string) =>
      this.page(response, status, this.signInPage(details, requester, email, error));

    const busy = await this.rate.signIn(address);
    if (busy > 0) {
      response.set('Retry-After', String(busy));
      return again(429, `Too many sign-in attempts from here. Try again in ${busy} seconds.`);
    }
    if (email === '' || password === '') {
      return again(400, 'Enter your email address and password.');
    }
    const wait = await this.limiter.retryAfter(SIGN_IN_POLICY, 'sign-in', email, address);
    if (wait > 0) {
      response.set('Retry-After', String(wait));
      return again(
        429,
        `Too many failed attempts. Try again in ${Math.ceil(wait / 60)} minute(s).`,
      );
    }
    const user =
      password.length > MAX_PASSWORD_LENGTH ? null : await this.users.authenticate(email, password);
    if (!user) {
      await this.limiter.recordFailure(SIGN_IN_POLICY, 'sign-in', email, address);
      return again(401, 'The email address or password is not right.');
    }
    await this.limiter.recordSuccess('sign-in', email);
    if (!belongsTo(user, requester)) {
      return this.page(response, 403, this.otherOrganizationPage(details, requester, user));
    }
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: toPublicId('user', user.id), amr: ['pwd'] } },
      { mergeWithLastSubmission: false },
    );
  }

  @Post('sso')
  @Public()
  @ApiOperation({
    summary: 'Sign in with SSO: the work email picks the organisation’s IdP or directory',
  })
  @ApiResponse({ status: 200, description: 'An LDAP directory: its password page' })
  @ApiResponse({
    status: 400,
    description: 'No SSO connection for the email’s domain: the sign-in page, with why',
  })
  async signInWithSso(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    if (details.prompt.name !== 'login') return this.redirectToInteraction(response, details);
    const email = formText(request, 'email').trim();
    const requester = await this.requester(provider, details);
    const connection = email === '' ? null : await this.sso.connectionForEmail(email);
    if (connection === null) {
      const domain = email.split('@')[1];
      const error = domain
        ? `No single sign-on is set up for ${domain}. Sign in with your password, or ask your administrator.`
        : 'Enter your work email address.';
      return this.page(response, 400, this.signInPage(details, requester, email, error));
    }
    if (connection.config.kind === 'ldap') {
      return this.page(
        response,
        200,
        this.directoryPage(details, requester, connection.name, email),
      );
    }
    // To the IdP; its answer comes back to the ACS with this interaction as RelayState.
    response.redirect(303, await this.sso.samlAuthorizeUrl(connection, details.uid));
  }

  @Get('sso/saml')
  @Public()
  @ApiOperation({
    summary: 'Where the SAML ACS sends the browser back: finishes the sign-in it checked',
  })
  @ApiResponse({ status: 303, description: 'Signed in: back to the authorization endpoint' })
  @ApiResponse({ status: 400, description: 'No checked SAML response for this interaction' })
  @ApiResponse({
    status: 403,
    description: 'No account this connection may sign in, or the IdP’s response was refused',
  })
  async finishSamlSignIn(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    if (details.prompt.name !== 'login') return this.redirectToInteraction(response, details);
    const requester = await this.requester(provider, details);
    const result = await this.sso.takeSamlResult(details.uid);
    if (result === null) {
      const error = 'The sign-in through your identity provider did not complete. Try again.';
      return this.page(response, 400, this.signInPage(details, requester, undefined, error));
    }
    if (!result.ok) {
      const [status, message] = SSO_REFUSALS[result.reason];
      return this.page(response, status, this.signInPage(details, requester, undefined, message));
    }
    const user = await this.users.findById(result.userId);
    if (!user || !belongsTo(user, requester)) {
      return this.page(response, 403, this.otherOrganizationPage(details, requester, user));
    }
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: toPublicId('user', user.id) } },
      { mergeWithLastSubmission: false },
    );
  }

  @Post('sso/ldap')
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
  async signInWithDirectory(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    if (details.prompt.name !== 'login') return this.redirectToInteraction(response, details);
    const email = formText(request, 'email').trim();
    const password = formText(request, 'password');
    const address = request.ip ?? 'unknown';
    const requester = await this.requester(provider, details);
    const connection = email === '' ? null : await this.sso.connectionForEmail(email);
    if (connection === null || connection.config.kind !== 'ldap') {
      const error = 'No directory signs in this email address. Sign in with your password.';
      return this.page(response, 400, this.signInPage(details, requester, email, error));
    }
    const again = (status: number, error: string) =>
      this.page(
        response,
        status,
        this.directoryPage(details, requester, connection.name, email, error),
      );
    const busy = await this.rate.signIn(address);
    if (busy > 0) {
      response.set('Retry-After', String(busy));
      return again(429, `Too many sign-in attempts from here. Try again in ${busy} seconds.`);
    }
    if (password === '') return again(400, 'Enter your directory password.');
    // The same limits as local passwords: a directory is no less worth guessing at.
    const wait = await this.limiter.retryAfter(SIGN_IN_POLICY, 'sign-in', email, address);
    if (wait > 0) {
      response.set('Retry-After', String(wait));
      return again(
        429,
        `Too many failed attempts. Try again in ${Math.ceil(wait / 60)} minute(s).`,
      );
    }
    const result =
      password.length > MAX_PASSWORD_LENGTH
        ? ({ ok: false, reason: 'invalid_credentials', detail: 'too long' } as const)
        : await this.sso.ldapSignIn(connection, email, password);
    if (!result.ok) {
      if (result.reason === 'invalid_credentials') {
        await this.limiter.recordFailure(SIGN_IN_POLICY, 'sign-in', email, address);
      }
      const [status, message] = SSO_REFUSALS[result.reason];
      return again(status, message);
    }
    await this.limiter.recordSuccess('sign-in', email);
    if (!belongsTo(result.user, requester)) {
      return this.page(response, 403, this.otherOrganizationPage(details, requester, result.user));
    }
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: toPublicId('user', result.user.id), amr: ['pwd'] } },
      { mergeWithLastSubmission: false },
    );
  }

  @Post('confirm')
  @Public()
  @ApiOperation({ summary: 'Allow the application the scopes shown' })
  @ApiResponse({
    status: 303,
    description: 'Back to the authorization endpoint, which redirects to the client',
  })
  async confirm(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    if (details.prompt.name !== 'consent') return this.redirectToInteraction(response, details);
    const requester = await this.requester(provider, details);
    const user = await this.signedInUser(details);
    if (!belongsTo(user, requester)) {
      return this.page(response, 403, this.otherOrganizationPage(details, requester, user));
    }
    const { prompt, params, session, grantId } = details;
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({ accountId: session!.accountId, clientId: params.client_id as string });
    if (!grant)
      return this.page(response, 400, renderErrorPage('invalid_request', 'grant expired'));
    const missing = prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const savedGrantId = await grant.save();
    await provider.interactionFinished(
      request,
      response,
      { consent: grantId ? {} : { grantId: savedGrantId } },
      { mergeWithLastSubmission: true },
    );
  }

  @Post('abort')
  @Public()
  @ApiOperation({ summary: 'Cancel sign-in or deny access' })
  @ApiResponse({ status: 303, description: 'To the client with error=access_denied' })
  async abort(@Req() request: Request, @Res() response: Response): Promise<void> {
    const provider = await this.server.provider();
    const details = await this.details(provider, request, response);
    if (!details) return;
    await provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'the user did not allow access' },
      { mergeWithLastSubmission: false },
    );
  }

  /** The interaction bound to this browser's cookie, or an error page when there is none. */
  private async details(
    provider: Provider,
    request: Request,
    response: Response,
  ): Promise<InteractionDetails | null> {
    try {
      const details = await provider.interactionDetails(request, response);
      if (details.uid !== request.params.uid) throw new Error('uid mismatch');
      return details;
    } catch {
      this.page(
        response,
        400,
        renderErrorPage(
          'invalid_request',
          'this sign-in link has expired or was opened in another browser; start again from the application',
        ),
      );
      return null;
    }
  }

  private signInPage(
    details: InteractionDetails,
    requester: Requester,
    email?: string,
    error?: string,
  ): string {
    return renderSignInPage({
      action: `/oauth2/interaction/${details.uid}/login`,
      abortAction: `/oauth2/interaction/${details.uid}/abort`,
      ssoAction: `/oauth2/interaction/${details.uid}/sso`,
      clientName: requester.clientName,
      organizationName: requester.organizationName,
      email: email ?? (details.params.login_hint as string | undefined),
      error,
    });
  }

  private directoryPage(
    details: InteractionDetails,
    requester: Requester,
    connectionName: string,
    email: string,
    error?: string,
  ): string {
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

  private consentPage(
    details: InteractionDetails,
    requester: Requester,
    user: UserEntity | null,
  ): string {
    const missing = details.prompt.details as { missingResourceScopes?: Record<string, string[]> };
    const scopes = new Set<string>();
    for (const list of Object.values(missing.missingResourceScopes ?? {})) {
      for (const scope of list) scopes.add(scope);
    }
    return renderConsentPage({
      action: `/oauth2/interaction/${details.uid}/confirm`,
      abortAction: `/oauth2/interaction/${details.uid}/abort`,
      clientName: requester.clientName,
      organizationName: requester.organizationName,
      userEmail: user?.email ?? '',
      scopes: [...scopes],
    });
  }

  private otherOrganizationPage(
    details: InteractionDetails,
    requester: Requester,
    user: UserEntity | null,
  ): string {
    return renderOtherOrganizationPage({
      abortAction: `/oauth2/interaction/${details.uid}/abort`,
      clientName: requester.clientName,
      organizationName: requester.organizationName,
      userEmail: user?.email ?? 'your account',
    });
  }

  private async requester(provider: Provider, details: InteractionDetails): Promise<Requester> {
    const client = await provider.Client.find(details.params.client_id as string);
    const organizationId = client ? clientOrganizationId(client) : null;
    const organization =
      organizationId === null ? null : await this.organizations.get(organizationId);
    return {
      clientName: client?.clientName ?? 'An application',
      organizationId: organization?.id ?? null,
      organizationName: organization?.name ?? 'an unknown organisation',
    };
  }

  private async signedInUser(details: InteractionDetails): Promise<UserEntity | null> {
    const userId = parsePublicId('user', details.session?.accountId ?? '');
    return userId === null ? null : this.users.findById(userId);
  }

  private redirectToInteraction(response: Response, details: InteractionDetails): void {
    response.redirect(303, `${this.settings.publicUrl}/oauth2/interaction/${details.uid}`);
  }

  private page(response: Response, status: number, html: string): void {
    response.status(status).set(PAGE_HEADERS).type('html').send(html);
  }
}

/** What each SSO refusal shows: status and words (never which of password or account was wrong). */
const SSO_REFUSALS: Record<Exclude<SsoSignInResult, { ok: true }>['reason'], [number, string]> = {
  invalid_credentials: [401, 'The email address or password is not right.'],
  unavailable: [503, 'Your organisation’s directory could not be reached. Try again in a moment.'],
  other_organization: [403, 'This email address belongs to an account of another organisation.'],
  disabled: [403, 'This account is disabled. Ask your administrator.'],
  saml_refused: [
    403,
    'Your identity provider’s answer could not be accepted. Try again, or ask your administrator.',
  ],
  not_provisioned: [
    403,
    'You have no account here yet, and this sign-in does not create one. Ask your administrator.',
  ],
};

function formText(request: Request, name: string): string {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

function belongsTo(user: UserEntity | null, requester: Requester): boolean {
  return user !== null && user.organizationId === requester.organizationId;
}
