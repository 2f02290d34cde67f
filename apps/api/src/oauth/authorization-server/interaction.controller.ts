import { Get, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MAX_PASSWORD_LENGTH, UsersService, type UserEntity } from '#auth';
import { Public } from '../../http/auth.decorator.js';
import {
  belongsTo,
  formText,
  InteractionPages,
  Interactions,
  type OpenInteraction,
} from './interactions.js';
import { renderConsentPage, renderErrorPage } from './pages.js';

/**
 * The sign-in and consent pages of the authorization code flow. oidc-provider
 * sends the browser here (/oauth2/interaction/{uid}) with a cookie bound to
 * that uid, and takes it back once the user has signed in and decided. The
 * pages name the organisation that registered the application, and an
 * account of another one is shown why it cannot go on. Signing in through an
 * organisation's identity provider or directory: SsoInteractionController.
 */
@InteractionPages('oauth2/interaction/:uid')
export class InteractionController {
  constructor(
    private readonly interactions: Interactions,
    private readonly users: UsersService,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Sign-in or consent page of an authorization request (browser)' })
  @ApiResponse({ status: 200, description: 'The sign-in page, or the consent page once signed in' })
  async show(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, null);
    if (!open) return;
    if (open.details.prompt.name === 'login') {
      return this.interactions.page(response, 200, this.interactions.signInPage(open));
    }
    const user = await this.interactions.signedInUser(open.details);
    if (!belongsTo(user, open.requester)) {
      return this.interactions.page(
        response,
        403,
        this.interactions.otherOrganizationPage(open, user),
      );
    }
    return this.interactions.page(response, 200, consentPage(open, user));
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
      'Too many sign-in attempts from this address (SIGN_IN_RATE_PER_ADDRESS a minute), too many failed ones from this address (for this account, or for any), or an account failing from many addresses, whose attempts are spaced out (a minute at most; never locked)',
  })
  async signIn(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, 'login');
    if (!open) return;
    const email = formText(request, 'email').trim();
    const password = formText(request, 'password');
    const address = request.ip ?? 'unknown';
    const again = (status: number, error: string) =>
      this.interactions.page(response, status, this.interactions.signInPage(open, email, error));

    const busy = await this.interactions.tooManyFromAddress(response, address);
    if (busy !== null) return again(429, busy);
    if (email === '' || password === '') {
      return again(400, 'Enter your email address and password.');
    }
    const locked = await this.interactions.tooManyFailures(response, email, address, 'password');
    if (locked !== null) return again(429, locked);
    const user =
      password.length > MAX_PASSWORD_LENGTH ? null : await this.users.authenticate(email, password);
    if (!user) {
      await this.interactions.recordFailure(email, address, 'password', 'invalid_credentials');
      return again(401, 'The email address or password is not right.');
    }
    await this.interactions.recordSuccess(email, address);
    await this.interactions.finishLogin(open, request, response, user, 'password', ['pwd']);
  }

  @Post('confirm')
  @Public()
  @ApiOperation({ summary: 'Allow the application the scopes shown' })
  @ApiResponse({
    status: 303,
    description: 'Back to the authorization endpoint, which redirects to the client',
  })
  async confirm(@Req() request: Request, @Res() response: Response): Promise<void> {
    const open = await this.interactions.open(request, response, 'consent');
    if (!open) return;
    const { provider, details, requester } = open;
    const user = await this.interactions.signedInUser(details);
    if (!belongsTo(user, requester)) {
      return this.interactions.page(
        response,
        403,
        this.interactions.otherOrganizationPage(open, user),
      );
    }
    const { prompt, params, session, grantId } = details;
    const grant = grantId
      ? await provider.Grant.find(grantId)
      : new provider.Grant({ accountId: session!.accountId, clientId: params.client_id as string });
    if (!grant) {
      return this.interactions.page(
        response,
        400,
        renderErrorPage('invalid_request', 'grant expired'),
      );
    }
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
    const open = await this.interactions.open(request, response, null);
    if (!open) return;
    await open.provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'the user did not allow access' },
      { mergeWithLastSubmission: false },
    );
  }
}

function consentPage(open: OpenInteraction, user: UserEntity | null): string {
  const { details, requester } = open;
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
