import { HttpCode, Param, Post, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiConsumes, ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { SsoConnectionsService, SsoSignInService } from '#sso';
import { ApiController } from '../http/api-controller.decorator.js';
import { Public } from '../http/auth.decorator.js';
import { ResourceParam } from '../http/resource-param.decorator.js';
import {
  PAGE_HEADERS,
  renderErrorPage,
  renderIdpSignedInPage,
} from '../oauth/authorization-server/pages.js';
import { recordSamlRefusal } from '../oauth/authorization-server/interactions.js';
import { SSO_CONNECTION_ID } from './sso-connection-id.js';

/** An interaction uid as oidc-provider makes them: what a RelayState must look like to be followed. */
const INTERACTION_UID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The assertion consumer service of each SAML connection: the IdP's browser
 * POST of its response. The response is checked here (its cookie-less
 * cross-site POST cannot finish the interaction), and the browser is sent
 * back to the interaction its RelayState names, which finishes the sign-in.
 * A refused response is recorded here (`sign_in.failed`), under the
 * connection it came through, whichever way the browser goes on.
 */
@ApiTags('Enterprise SSO (v2)')
@ApiProduces('text/html')
@ApiController({ path: 'sso/saml', version: VERSION_NEUTRAL })
export class SamlAcsController {
  constructor(
    private readonly sso: SsoSignInService,
    private readonly connections: SsoConnectionsService,
    private readonly settings: AppSettings,
    private readonly sql: Sql,
  ) {}

  @Post(':connection_id/acs')
  @HttpCode(303)
  @Public()
  @ApiOperation({
    summary: "A SAML connection's assertion consumer service (HTTP-POST binding, browser)",
    description:
      'Takes the IdP’s `SAMLResponse` and `RelayState` (form fields), checks the response (signature by the IdP’s certificates, audience, destination, recipient, time with the clock skew, InResponseTo of a request we sent for this interaction, no replay) and sends the browser back to the sign-in it started.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ResourceParam('connection_id', SSO_CONNECTION_ID.example, 'ssoConnection')
  @ApiResponse({ status: 303, description: 'Back to the interaction, which finishes the sign-in' })
  @ApiResponse({
    status: 200,
    description:
      'An IdP-initiated sign-in the connection allows: the account is up to date, and the page says to open the application (an HTML page)',
  })
  @ApiResponse({ status: 400, description: 'No SAMLResponse (an HTML page)' })
  @ApiResponse({
    status: 403,
    description: 'An IdP-initiated response the connection refuses, or one that fails its checks',
  })
  @ApiResponse({
    status: 404,
    description: 'No enabled SAML connection with this id (an HTML page)',
  })
  async consume(
    @Param('connection_id') connectionId: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const samlResponse = typeof body.SAMLResponse === 'string' ? body.SAMLResponse : '';
    const relayState = typeof body.RelayState === 'string' ? body.RelayState : undefined;
    const page = (status: number, description: string): void => {
      response
        .status(status)
        .set(PAGE_HEADERS)
        .type('html')
        .send(renderErrorPage('invalid_request', description));
    };
    if (samlResponse === '') return page(400, 'the identity provider sent no SAMLResponse');
    const consumed = await this.sso.samlResponse(connectionId, {
      SAMLResponse: samlResponse,
      ...(relayState !== undefined ? { RelayState: relayState } : {}),
    });
    if (consumed === null) return page(404, 'no enabled SAML connection has this address');
    const { result, solicited } = consumed;
    if (!result.ok) {
      // The connection answered just now; null only if it was deleted in between.
      const connection = await this.connections.findSaml(connectionId);
      if (connection) await recordSamlRefusal(this.sql, connection, result);
    }
    const interaction = relayState !== undefined && INTERACTION_UID.test(relayState);
    if (result.ok && !solicited) {
      // IdP-initiated (only where the connection allows it: the SP refuses unsolicited
      // responses otherwise). The account is provisioned and up to date, but no
      // application is waiting: the person is told where to go. Its RelayState is the
      // sender's: never followed as a URL, and never an interaction to finish.
      response
        .status(200)
        .set(PAGE_HEADERS)
        .type('html')
        .send(renderIdpSignedInPage(result.user.email));
      return;
    }
    if (!interaction) return page(403, 'the identity provider’s answer could not be accepted');
    await this.sso.rememberSamlResult(relayState, result);
    response.redirect(303, `${this.settings.publicUrl}/oauth2/interaction/${relayState}/sso/saml`);
  }
}
