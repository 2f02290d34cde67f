import { Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { UsersService } from '#auth';
import { Scope, toPublicId, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { UserProfileDto } from './user-profile-v1.dto.js';

@ApiTags('Users (v1)')
@ApiController({ path: 'user', version: '1' })
export class UserProfileController {
  constructor(private readonly users: UsersService) {}

  @Get('profile')
  @Auth({ scopes: [Scope.Profile], accessTokenOnly: true, members: true })
  @ApiOperation({
    summary: 'The signed-in user',
    description:
      'Needs an access token from the authorization code flow (a person signed in). `email` is included when the token also has the `email` scope. Tokens of the client_credentials grant belong to no person and get 403. Every member may call it, analysts and judges too: their `roles` and `analyst_id` say what they do in the organisation.',
  })
  @ApiOkResponse({ type: UserProfileDto })
  async profile(@CurrentPrincipal() principal: Principal): Promise<UserProfileDto> {
    const user = await this.users.signedInUser(principal);
    return {
      user_id: toPublicId('user', user.id),
      analyst_id: toPublicId('analyst', user.id),
      name: user.name,
      organization_id: toPublicId('organization', user.organizationId),
      ...(principal.scopes.includes(Scope.Email) ? { email: user.email } : {}),
      roles: user.roles,
      created_at: user.createdAt.toISOString(),
    };
  }
}
