import { applyDecorators, Injectable, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { isFirstPartyClient, UsersService, type UserEntity } from '#auth';
import { parsePublicId, toPublicId } from '#common';
import { AppSettings } from '#config';
import { OrganizationsService } from '#organizations';
import { ApiController } from '../../http/api-controller.decorator.js';
import { AuthorizationServer } from './authorization-server.js';
import { EndpointRateLimiter } from './endpoint-rate-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';
import { clientOrganizationId } from './oidc-adapter.js';
import {
  PAGE_HEADERS,
  renderErrorPage,
  renderOtherOrganizationPage,
  renderSignInPage,
} from './pages.js';

/** A controller of interaction pages under `path` (`oauth2/interaction/:uid…`): HTML, bound to the uid. */
export function InteractionPages(path: string) {
  return applyDecorators(
    ApiTags('OAuth 2.0'),
    ApiProduces('text/html'),
    ApiParam({
      name: 'uid',
      description: 'The interaction, bound to a cookie set by /oauth2/authorize',
    }),
    ApiResponse({ status: 400, description: 'No such interaction in this browser (an HTML page)' }),
    ApiController({ path, version: VERSION_NEUTRAL }),
  );
}

export type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The application asking, as the pages name it: its name and the organisation that registered it. */
export interface Requester {
  clientName: string;
  organizationId: string | null;
  organizationName: string;
  /** The service's own dashboard, which signs in people of every organisation. */
  firstParty: boolean;
}

/** An interaction this browser holds, at the step a route expects, with who is asking. */
export interface OpenInteraction {
  provider: Provider;
  details: InteractionDetails;
  requester: Requester;
}

/**
 * What the sign-in and consent routes (local passwords, SSO) share: the
 * interaction bound to the browser's cookie, the pages, the attempt limits
 * and the end of a sign-in. A user can allow only an application of their
 * own organisation: a token carries the user's organisation, so a client
 * registered elsewhere would otherwise reach it.
 */
@Injectable()
export class Interactions {
  constructor(
    private readonly server: AuthorizationServer,
    private readonly users: UsersService,
    private readonly limiter: SignInLimiter,
    private readonly rate: EndpointRateLimiter,
    private readonly settings: AppSettings,
    private readonly organizations: OrganizationsService,
  ) {}

  /**
   * The interaction at `prompt` (any, when null); null once the browser has
   * been answered instead: an error page when it holds no such interaction,
   * a redirect to the interaction's page when it is at another step.
   */
  async open(
    request: Request,
    response: Response,
    prompt: 'login' | 'consent' | null,
  ): Promise<OpenInteraction | null> {
    const provider = await this.server.provider();
    let details: InteractionDetails;
    try {
      details = await provider.interactionDetails(request, response);
      if (details.uid !== request.params.uid) throw new Error('uid mismatch');
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
    if (prompt !== null && details.prompt.name !== prompt) {
      response.redirect(303, `${this.settings.publicUrl}/oauth2/interaction/${details.uid}`);
      return null;
    }
    return { provider, details, requester: await this.requester(provider, details) };
  }

  /** Too many sign-in submissions from this address: what to say (`Retry-After` set), else null. */
  async tooManyFromAddress(response: Response, address: string): Promise<string | null> {
    const busy = await this.rate.signIn(address);
    if (busy === 0) return null;
    response.set('Retry-After', String(busy));
    return `Too many sign-in attempts from here. Try again in ${busy} seconds.`;
  }

  /**
   * Too many failed passwords from this address (for this account, or for
   * any), or for this account from anywhere (a short wait, never a lock): what
   * to say (`Retry-After` set), else null.
   */
  async tooManyFailures(
    response: Response,
    email: string,
    address: string,
  ): Promise<string | null> {
    const wait = await this.limiter.wait(email, address);
    if (wait === null) return null;
    response.set('Retry-After', String(wait.seconds));
    return wait.reason === 'locked'
      ? `Too many failed attempts. Try again in ${Math.ceil(wait.seconds / 60)} minute(s).`
      : `Too many failed attempts for this account. Try again in ${wait.seconds} second(s).`;
  }

  recordFailure(email: string, address: string): Promise<void> {
    return this.limiter.recordFailure(email, address);
  }

  recordSuccess(email: string, address: string): Promise<void> {
    return this.limiter.recordSuccess(email, address);
  }

  /** The user signed in (`amr` as it was), or the page saying their organisation is not the application's. */
  async finishLogin(
    open: OpenInteraction,
    request: Request,
    response: Response,
    user: UserEntity,
    amr?: string[],
  ): Promise<void> {
    if (!belongsTo(user, open.requester)) {
      return this.page(response, 403, this.otherOrganizationPage(open, user));
    }
    await open.provider.interactionFinished(
      request,
      response,
      { login: { accountId: toPublicId('user', user.id), ...(amr ? { amr } : {}) } },
      { mergeWithLastSubmission: false },
    );
  }

  async signedInUser(details: InteractionDetails): Promise<UserEntity | null> {
    const userId = parsePublicId('user', details.session?.accountId ?? '');
    return userId === null ? null : this.users.findById(userId);
  }

  signInPage(open: OpenInteraction, email?: string, error?: string): string {
    const { details, requester } = open;
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

  otherOrganizationPage(open: OpenInteraction, user: UserEntity | null): string {
    return renderOtherOrganizationPage({
      abortAction: `/oauth2/interaction/${open.details.uid}/abort`,
      clientName: open.requester.clientName,
      organizationName: open.requester.organizationName,
      userEmail: user?.email ?? 'your account',
    });
  }

  page(response: Response, status: number, html: string): void {
    response.status(status).set(PAGE_HEADERS).type('html').send(html);
  }

  private async requester(provider: Provider, details: InteractionDetails): Promise<Requester> {
    const client = await provider.Client.find(details.params.client_id as string);
    const organizationId = client ? clientOrganizationId(client) : null;
    const organization =
      organizationId === null ? null : await this.organizations.get(organizationId);
    if (client && isFirstPartyClient(client.clientId)) {
      return {
        clientName: 'the dashboard',
        organizationId: null,
        organizationName: '',
        firstParty: true,
      };
    }
    return {
      firstParty: false,
      clientName: client?.clientName ?? 'An application',
      organizationId: organization?.id ?? null,
      organizationName: organization?.name ?? 'an unknown organisation',
    };
  }
}

export function belongsTo(user: UserEntity | null, requester: Requester): boolean {
  return (
    user !== null && (requester.firstParty || user.organizationId === requester.organizationId)
  );
}

/** A text field of a submitted form, or ''. */
export function formText(request: Request, name: string): string {
  const value = ((request.body ?? {}) as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}
