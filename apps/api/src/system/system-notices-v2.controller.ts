import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { IsDateString, IsIn, IsString, Length, ValidateIf } from 'class-validator';
import { AppError, Scope, type Principal } from '#common';
import { SYSTEM_NOTICE_TYPES, SystemNotices, type SystemNoticeType } from '#events';
import { OrganizationsService } from '#organizations';
import { Auth, CurrentPrincipal, RequestId } from '../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../http/error-envelope.dto.js';
import { ApiJsonBody, type RequestExamples } from '../http/request-examples.js';
import { oneOf } from '../http/validation-messages.js';

const SEVERITIES = ['info', 'warning', 'critical'] as const;
const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

export class CreateSystemNoticeDto {
  @ApiProperty({ enum: SYSTEM_NOTICE_TYPES, example: 'system.maintenance_scheduled' })
  @IsIn(SYSTEM_NOTICE_TYPES, oneOf(SYSTEM_NOTICE_TYPES))
  type!: SystemNoticeType;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Database upgrade' })
  @IsString({ message: 'must be a string' })
  @Length(1, 200, { message: 'must be 1 to 200 characters' })
  title!: string;

  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'Writes pause for up to 5 minutes.' })
  @IsString({ message: 'must be a string' })
  @Length(1, 4000, { message: 'must be 1 to 4000 characters' })
  message!: string;

  @ApiPropertyOptional({ enum: SEVERITIES, default: 'info' })
  @Optional()
  @IsIn(SEVERITIES, oneOf(SEVERITIES))
  severity?: (typeof SEVERITIES)[number];

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  starts_at?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsDateString({ strict: true }, { message: 'must be an ISO 8601 date-time' })
  ends_at?: string;

  @ApiPropertyOptional({
    example: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz',
    description: 'Tell only this organisation; every organisation when left out',
  })
  @Optional()
  @IsString({ message: 'must be an organisation id' })
  organization_id?: string;
}

const CREATE_SYSTEM_NOTICE_EXAMPLES: RequestExamples = {
  maintenance: {
    summary: 'Maintenance, announced to every organisation',
    value: {
      type: 'system.maintenance_scheduled',
      title: 'Database upgrade',
      message: 'Writes pause for up to 5 minutes.',
      severity: 'warning',
      starts_at: '2099-12-01T02:00:00Z',
      ends_at: '2099-12-01T02:30:00Z',
    },
  },
};

export class SystemNoticeDto {
  @ApiProperty({ example: 'ntc_01jh2x7v4ke8rbk3a8y0v0d7qz' })
  notice_id!: string;

  @ApiProperty({ enum: SYSTEM_NOTICE_TYPES })
  type!: string;

  @ApiProperty({ type: 'integer', description: 'Organisations told' })
  organizations!: number;

  @ApiProperty({ type: 'integer', description: 'Events written (one per organisation and mode)' })
  events!: number;
}

@ApiTags('System notices (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@Controller({ path: 'system/notices', version: '2' })
export class SystemNoticesV2Controller {
  constructor(
    private readonly notices: SystemNotices,
    private readonly organizations: OrganizationsService,
  ) {}

  @Post()
  @HttpCode(202)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
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
    await this.organizations.requireOperator(principal, 'announce system notices');
    if (body.starts_at && body.ends_at && new Date(body.ends_at) < new Date(body.starts_at)) {
      throw AppError.invalid('ends_at', 'must not be before starts_at');
    }
    const result = await this.notices.announce(
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
