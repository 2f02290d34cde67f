import { Body, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { OperatorNotices } from '#organizations';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import {
  CREATE_SYSTEM_NOTICE_EXAMPLES,
  CreateSystemNoticeDto,
  SystemNoticeDto,
} from './system-notice-v2.dto.js';

@ApiTags('System notices (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'system/notices', version: '2' })
export class SystemNoticesV2Controller {
  constructor(private readonly notices: OperatorNotices) {}

  @Post()
  @HttpCode(202)
  @Auth({ scopes: [Scope.OrganizationsWrite], liveOnly: true })
  @ApiOperation({
    summary: 'Announce maintenance, a disruption or a security alert',
    description:
      'Operator organisation only, with a live-mode credential. Emits the `system.*` event to every organisation (or one), in both modes; their webhooks and event logs receive it like any other event.',
  })
  @ApiResponse({ status: 404, description: 'No such organisation', type: ErrorEnvelopeDto })
  @ApiJsonBody(CreateSystemNoticeDto, CREATE_SYSTEM_NOTICE_EXAMPLES)
  @ApiAcceptedResponse({ type: SystemNoticeDto })
  async announce(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateSystemNoticeDto,
  ): Promise<SystemNoticeDto> {
    const result = await this.notices.announce(
      principal,
      {
        type: body.type,
        title: body.title,
        message: body.message,
        severity: body.severity ?? 'info',
        startsAt: body.starts_at ? new Date(body.starts_at) : null,
        endsAt: body.ends_at ? new Date(body.ends_at) : null,
        organizationId: body.organization_id,
      },
      requestId,
    );
    return {
      notice_id: result.noticeId,
      type: body.type,
      organizations: result.organizations,
      events: result.events,
    };
  }
}
