import { applyDecorators, Injectable, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { isFirstPartyClient, UsersService, type UserEntity } from '#auth';
import { parsePublicId, toPublicId } from '#common';
import { AppSettings } from '#config';
import { Sql, type Queryable } from '#database';
import { AuditLog, type AuditAction } from '#events';
import { OrganizationsService } from '#organizations';
import { ssoConnectionPublicId, type SsoConnection, type SsoSignInResult } from '#sso';
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

/** How a person signs in: the `method` of their sign-in's audit records. */
export type SignInMethod = 'password' | 'ldap' | 'saml';

/** Why an attempt was refused, as its audit record says (an SSO refusal's own reason, or these). */
export type SignInFailure =
  Exclude<SsoSignInResult, { ok: true }>['reason'] | 'invalid_credentials' | 'other_organization';

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
 *
 * It also keeps the audit log of sign-ins (`sign_in.succeeded`, `.failed`,
 * `.locked`), under the person's organisation, the person as actor and
 * target. An attempt on an email no person has is recorded nowhere: it
 * belongs to no organisation. A record is written before the page answers,
 * and a record that cannot be written fails the request like any database
 * failure of these pages (503): a sign-in is never let through unaudited.
 * An IdP's refused SAML response names no person: the ACS records it under
 * its connection (`recordSamlRefusal`).
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
    private readonly sql: Sql,
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
   * to say (`Retry-After` set), else null. Each attempt refused so is
   * recorded (`sign_in.locked`) when the email is a person's.
   */
  async tooManyFailures(
    response: Response,
    email: string,
    address: string,
    method: SignInMethod,
  ): Promise<string | null> {
    const wait = await this.limiter.wait(email, address);
    if (wait === null) return null;
    const user = await this.users.findByEmail(email);
    if (user) {
      await this.record(user, 'sign_in.locked', { method, retry_after_seconds: wait.seconds });
    }
    response.set('Retry-After', String(wait.seconds));
    return wait.reason === 'locked'
      ? `Too many failed attempts. Try again in ${Math.ceil(wait.seconds / 60)} minute(s).`
      : `Too many failed attempts for this account. Try again in ${wait.seconds} second(s).`;
  }

  /**
   * A refused attempt: counted against the attempt limits when the
   * credentials were wrong (a refusal no guess gets past — a directory down,
   * an account disabled — is not), and recorded (`sign_in.failed`, with the
   * reason, never what was typed) when the email is a person's.
   */
  async recordFailure(
    email: string,
    address: string,
    method: SignInMethod,
    reason: SignInFailure,
  ): Promise<void> {
    if (reason === 'invalid_credentials') await this.limiter.recordFailure(email, address);
    const user = await this.users.findByEmail(email);
    // An email of no person cannot be filed under any organisation: nothing is recorded.
    if (user) await this.record(user, 'sign_in.failed', { method, reason });
  }

  recordSuccess(email: string, address: string): Promise<void> {
    return this.limiter.recordSuccess(email, address);
  }

  /**
   * The user signed in (`amr` as it was; `sign_in.succeeded`), or the page
   * saying their organisation is not the application's (`sign_in.failed`).
   * Recorded before the browser is let in: a sign-in the audit log cannot
   * hold is refused.
   */
  async finishLogin(
    open: OpenInteraction,
    request: Request,
    response: Response,
    user: UserEntity,
    method: SignInMethod,
    amr?: string[],
  ): Promise<void> {
    if (!belongsTo(user, open.requester)) {
      await this.record(user, 'sign_in.failed', { method, reason: 'other_organization' });
      return this.page(response, 403, this.otherOrganizationPage(open, user));
    }
    await this.record(user, 'sign_in.succeeded', { method });
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

  /** A sign-in of this person: their organisation's (live: people are), by and of them. */
  private record(
    user: UserEntity,
    action: AuditAction,
    details: { method: SignInMethod } & Record<string, unknown>,
  ): Promise<void> {
    const person = { type: 'person', id: toPublicId('user', user.id) } as const;
    return AuditLog.record(
      this.sql,
      { organizationId: user.organizationId, mode: 'live' },
      { action, actor: person, target: person, details },
    );
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

/**
 * An IdP's answer to a SAML connection refused (the response failed its
 * checks, or the account it vouched for cannot sign in): `sign_in.failed`
 * under the connection's organisation, by the service acting for the
 * connection, which names no person. The IdP's own refusal code rides along
 * for its administrator.
 */
export function recordSamlRefusal(
  on: Queryable,
  connection: SsoConnection,
  refusal: Exclude<SsoSignInResult, { ok: true }>,
): Promise<void> {
  const id = ssoConnectionPublicId(connection);
  return AuditLog.record(
    on,
    { organizationId: connection.organizationId, mode: 'live' },
    {
      action: 'sign_in.failed',
      actor: { type: 'system', id },
      target: { type: 'sso_connection', id },
      details: {
        method: 'saml',
        reason: refusal.reason,
        ...(refusal.reason === 'saml_refused' ? { saml_error: refusal.detail } : {}),
      },
    },
  );
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
