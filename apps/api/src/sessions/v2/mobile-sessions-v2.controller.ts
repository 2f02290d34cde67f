import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { SessionsService } from '#sessions';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { toCreatedV1 } from '../v1/session-v1.mapper.js';
import { CREATE_SESSION_V2_EXAMPLES, CreateSessionV2Dto } from './create-session-v2.dto.js';
import { MobileSessionCreatedDto } from './mobile-session-v2.dto.js';
import { toSessionRequestV2 } from './session-v2.mapper.js';
import { ApiConcurrentSessionsLimit } from '../concurrency-limit.decorator.js';

@ApiTags('Sessions (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR with suggested_value and help_url',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'mobile/sessions', version: '2' })
export class MobileSessionsV2Controller {
  constructor(private readonly sessions: SessionsService) {}

  @Post('create')
  @ApiConcurrentSessionsLimit()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Create a session from a mobile client',
    description:
      'The same request and the same session as POST /v2/sessions/create; the answer carries only `session_id`, `status`, `created_at` and `estimated_completion`, to keep it small on slow links. Read the rest with GET /v2/sessions/{id}.',
  })
  @ApiJsonBody(CreateSessionV2Dto, CREATE_SESSION_V2_EXAMPLES)
  @ApiCreatedResponse({ type: MobileSessionCreatedDto })
  @ApiJsonBodyRefusals()
  async create(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateSessionV2Dto,
  ): Promise<MobileSessionCreatedDto> {
    return toCreatedV1(
      await this.sessions.createRequested(principal, toSessionRequestV2(body), requestId),
    );
  }
}
