import { Delete, Get, Param, Patch, Post, Put, Req, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AppSettings } from '#config';
import {
  SCIM_BASE_PATH,
  SCIM_MEDIA_TYPE,
  ScimService,
  type ScimCaller,
  type ScimReply,
  type ScimRequest,
} from '#scim';
import { ApiController } from '../http/api-controller.decorator.js';
import { CurrentScimCaller, ScimAuth } from '../http/auth.decorator.js';

/**
 * The SCIM 2.0 service provider (RFC 7644) at /scim/v2, for identity
 * providers' provisioning (Okta, Entra ID): its own media type, its own
 * errors (written by sendError for every path under /scim/v2), its own
 * credential. Documented in docs/sso.md ("SCIM provisioning"), not in the
 * OpenAPI document: SCIM clients speak RFC 7644, not this API.
 */
@ApiExcludeController()
@ApiController({ path: 'scim/v2', version: VERSION_NEUTRAL })
export class ScimController {
  constructor(
    private readonly scim: ScimService,
    private readonly settings: AppSettings,
  ) {}

  @Get(':endpoint')
  @ScimAuth()
  list(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.serve(caller, { method: 'GET', endpoint, query: request.query }, response);
  }

  @Get(':endpoint/:id')
  @ScimAuth()
  read(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Param('id') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.serve(caller, { method: 'GET', endpoint, id, query: request.query }, response);
  }

  @Post(':endpoint')
  @ScimAuth()
  create(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.serve(
      caller,
      { method: 'POST', endpoint, query: {}, body: request.body as unknown },
      response,
    );
  }

  @Put(':endpoint/:id')
  @ScimAuth()
  replace(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Param('id') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.serve(
      caller,
      { method: 'PUT', endpoint, id, query: {}, body: request.body as unknown },
      response,
    );
  }

  @Patch(':endpoint/:id')
  @ScimAuth()
  patch(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Param('id') id: string,
    @Req() request: Request,
    @Res() response: Response,
  ) {
    return this.serve(
      caller,
      { method: 'PATCH', endpoint, id, query: {}, body: request.body as unknown },
      response,
    );
  }

  @Delete(':endpoint/:id')
  @ScimAuth()
  remove(
    @CurrentScimCaller() caller: ScimCaller,
    @Param('endpoint') endpoint: string,
    @Param('id') id: string,
    @Res() response: Response,
  ) {
    return this.serve(caller, { method: 'DELETE', endpoint, id, query: {} }, response);
  }

  private async serve(caller: ScimCaller, request: ScimRequest, response: Response) {
    const reply = await this.scim.handle(request, caller);
    this.send(reply, response);
  }

  private send(reply: ScimReply, response: Response): void {
    response.setHeader('Cache-Control', 'no-store');
    if (reply.location) response.setHeader('Location', this.absolute(reply.location));
    if (reply.body === undefined) {
      response.status(reply.status).end();
      return;
    }
    response.status(reply.status).type(SCIM_MEDIA_TYPE);
    response.send(
      JSON.stringify(reply.body, (key, value: unknown) =>
        key === 'location' && typeof value === 'string' ? this.absolute(value) : value,
      ),
    );
  }

  /** scimmy knows the resources' path; the public URL is this deployment's. */
  private absolute(location: string): string {
    return location.startsWith(SCIM_BASE_PATH) ? `${this.settings.publicUrl}${location}` : location;
  }
}
