import {
  applyDecorators,
  createParamDecorator,
  SetMetadata,
  type ExecutionContext,
} from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { Principal, ScopeName } from '#common';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';
import type { ApiRequest } from './request-context.js';

export const AUTH_METADATA = 'sas:auth';

export interface AuthRequirement {
  scopes: ScopeName[];
  /** Only OAuth access tokens, not API keys (e.g. creating API keys). */
  accessTokenOnly?: boolean;
}

export type AuthDeclaration = AuthRequirement | 'public';

/** Declares the scopes a route needs; sets the guard's metadata and the OpenAPI security together. */
export function Auth(requirement: AuthRequirement) {
  return applyDecorators(
    SetMetadata(AUTH_METADATA, requirement),
    ApiBearerAuth('bearer'),
    ...(requirement.accessTokenOnly ? [] : [ApiSecurity('api_key')]),
    ApiExtension('x-required-scopes', requirement.scopes),
    ApiResponse({
      status: 401,
      description: 'Missing, invalid or expired credential',
      type: ErrorEnvelopeDto,
    }),
    ApiResponse({
      status: 403,
      description: `Requires scope ${requirement.scopes.join(' ')}`,
      type: ErrorEnvelopeDto,
    }),
  );
}

/** Declares a route open to anyone; routes with neither this nor @Auth are refused. */
export function Public() {
  return SetMetadata(AUTH_METADATA, 'public');
}

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => {
    const principal = context.switchToHttp().getRequest<ApiRequest>().principal;
    if (!principal) throw new Error('CurrentPrincipal used on a route without @Auth');
    return principal;
  },
);

export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    context.switchToHttp().getRequest<ApiRequest>().id,
);
