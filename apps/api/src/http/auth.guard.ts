import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError, missingScopes, parsePublicId, type Principal } from '#common';
import { UsersService } from '#auth';
import { AppSettings } from '#config';
import type { ScimCaller } from '#scim';
import { AUTH_METADATA, type AuthDeclaration } from './auth.decorator.js';
import type { ApiRequest } from './request-context.js';
import { credentialOf, scimCallerOf } from './request-counting.js';
import { refuseLiveCredential } from './sandbox.js';

/** The path parameter naming an organisation. */
export const ORGANIZATION_PARAM = 'organization_id';

/** Denies by default: a route must declare @Auth(scopes), @ScimAuth() or @Public(). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly users: UsersService,
    private readonly settings: AppSettings,
  ) {}

  /** The SCIM token's organisation (resolved once, by RequestCounting); 401 for anything else. */
  private scimCallerOf(request: ApiRequest): ScimCaller {
    const holder = scimCallerOf(request);
    if (holder === null) {
      throw AppError.unauthorized(
        'use Authorization: Bearer <token> with a SCIM token of your organisation (POST /v2/enterprise/organizations/{organization_id}/scim-tokens)',
      );
    }
    return holder;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const declaration = this.reflector.getAllAndOverride<AuthDeclaration | undefined>(
      AUTH_METADATA,
      [context.getHandler(), context.getClass()],
    );
    if (declaration === 'public') return true;
    if (declaration === 'scim') {
      const request = context.switchToHttp().getRequest<ApiRequest>();
      request.scim = this.scimCallerOf(request);
      return true;
    }
    if (declaration === undefined) {
      throw new Error(
        `${context.getClass().name}.${context.getHandler().name} declares none of @Auth, @ScimAuth, @Public`,
      );
    }
    const request = context.switchToHttp().getRequest<ApiRequest>();
    // Resolved and counted against its organisation's limits before routing (RequestCounting).
    const principal = credentialOf(request);
    request.principal = principal;
    refuseLiveCredential(request, principal, this.settings.publicUrl);
    if (declaration.accessTokenOnly && principal.credential !== 'access_token') {
      throw new AppError(
        'FORBIDDEN',
        'This endpoint needs an OAuth access token; API keys cannot use it',
        {
          field: 'Authorization',
          issue: 'use Authorization: Bearer <access token>',
        },
      );
    }
    const missing = missingScopes(principal.scopes, declaration.scopes);
    if (missing.length > 0) throw AppError.forbidden(missing);
    if (declaration.liveOnly && principal.mode !== 'live') throw liveModeOnly();
    if (!declaration.anyOrganization) refuseOtherOrganization(request, principal);
    const member = await this.users.memberOf(principal);
    if (member) {
      request.member = member;
      if (!declaration.members && !member.roles.includes('admin')) throw membersOnlyTheirWork();
    }
    return true;
  }
}

/**
 * The organisation a path names (`/v2/enterprise/organizations/{organization_id}/…`)
 * is the caller's own, or the route is not theirs to reach: 404, as for any
 * other tenant's resource, so nothing says the organisation exists.
 */
function refuseOtherOrganization(request: ApiRequest, principal: Principal): void {
  const named = request.params?.[ORGANIZATION_PARAM];
  if (typeof named !== 'string') return;
  if (parsePublicId('organization', named) !== principal.organizationId) {
    throw AppError.notFound('organization', named);
  }
}

/** People and identity are live-mode things: a sandbox credential never makes someone who signs in to live data. */
function liveModeOnly(): AppError {
  return new AppError('FORBIDDEN', 'This endpoint needs a live-mode credential', {
    field: 'mode',
    issue:
      'people, sign-in connections and the organisation belong to both modes: test-mode credentials may read them but never change them',
  });
}

/** Analysts and judges are blind: outside their own work they reach nothing. */
function membersOnlyTheirWork(): AppError {
  return new AppError('FORBIDDEN', 'Analysts and judges reach only their own work', {
    field: 'role',
    issue:
      'this endpoint needs the admin role; analysts and judges use /v2/assignments, /v2/judging-tasks and the results endpoints',
  });
}
