import { Get, Param, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { InvitationsService, MIN_PASSWORD_LENGTH, type OpenInvitation } from '#analysts';
import { AppSettings } from '#config';
import { ApiController } from '../http/api-controller.decorator.js';
import { Audited } from '../http/audited.decorator.js';
import { Public } from '../http/auth.decorator.js';
import { formText } from '../oauth/authorization-server/interactions.js';
import {
  INVITATION_PAGE_HEADERS,
  renderCrossSitePage,
  renderInvitationAcceptedPage,
  renderInvitationGonePage,
  renderInvitationPage,
} from './invitation-pages.js';

/**
 * The page a new member's invitation link opens, where they set their
 * password (HTML, no script, like the sign-in pages). The token in the path
 * is the credential: 256 random bits, stored only as a hash, usable once
 * within 7 days. A forged cross-site post would need it; posts a browser
 * marks as coming from another site are refused anyway (Fetch Metadata).
 */
@ApiTags('Analysts (v2)')
@ApiProduces('text/html')
@ApiParam({
  name: 'token',
  description: 'The one-time invitation token of an `invitation_url`',
  example: '3q2-7wEjQ2dn1H7x0Rz1Ghk2e8cN4wq6qfS2W0S6E0o',
})
@ApiResponse({
  status: 404,
  description: 'The invitation is unknown, used or expired (an HTML page saying so)',
})
@ApiController({ path: 'invitations', version: VERSION_NEUTRAL })
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly settings: AppSettings,
  ) {}

  @Get(':token')
  @Public()
  @ApiOperation({ summary: "An invitation's page: the form to set a password (browser)" })
  @ApiResponse({ status: 200, description: 'The form' })
  async show(@Param('token') token: string, @Res() response: Response): Promise<void> {
    const open = await this.invitations.find(token);
    if (open === null) return page(response, 404, renderInvitationGonePage());
    page(response, 200, this.form(token, open));
  }

  @Post(':token')
  @Public()
  @Audited('person.updated')
  @ApiOperation({
    summary: 'Set the password of an invitation (browser form)',
    description: `Form-encoded \`password\` and \`password_confirmation\` (at least ${MIN_PASSWORD_LENGTH} characters, the same twice). Success ends the invitation: the account signs in with that password from now on (a \`person.updated\` audit event, the person its actor).`,
  })
  @ApiResponse({ status: 200, description: 'The account is ready (an HTML page)' })
  @ApiResponse({
    status: 400,
    description: 'The password breaks a rule or the two differ: the form again, saying why',
  })
  @ApiResponse({
    status: 403,
    description:
      'Posted from another site, or from an opaque origin (`Origin: null`) (an HTML page)',
  })
  async accept(
    @Param('token') token: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    if (fromAnotherSite(request, this.settings.publicUrl)) {
      return page(response, 403, renderCrossSitePage());
    }
    const outcome = await this.invitations.accept(
      token,
      formText(request, 'password'),
      formText(request, 'password_confirmation'),
    );
    if ('gone' in outcome) return page(response, 404, renderInvitationGonePage());
    if ('refused' in outcome) {
      const open = await this.invitations.find(token);
      if (open === null) return page(response, 404, renderInvitationGonePage());
      return page(response, 400, this.form(token, open, outcome.refused));
    }
    page(response, 200, renderInvitationAcceptedPage(outcome.accepted));
  }

  private form(token: string, open: OpenInvitation, error?: string): string {
    return renderInvitationPage({
      action: `/invitations/${encodeURIComponent(token)}`,
      ...open,
      minLength: MIN_PASSWORD_LENGTH,
      ...(error !== undefined ? { error } : {}),
    });
  }
}

function page(response: Response, status: number, html: string): void {
  response.status(status).set(INVITATION_PAGE_HEADERS).type('html').send(html);
}

/**
 * A browser says where a request comes from: `Sec-Fetch-Site` (every current
 * browser), else `Origin`. The page's referrer policy (same-origin) makes its
 * own form send its real origin, so the opaque `null` — what a sandboxed
 * frame or a data: page of any site sends — is refused like another origin.
 * Clients that send neither (scripts, tests) hold the token and are let through.
 */
function fromAnotherSite(request: Request, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const own = [new URL(publicUrl).origin, `${request.protocol}://${request.headers.host ?? ''}`];
  return !own.includes(origin);
}
