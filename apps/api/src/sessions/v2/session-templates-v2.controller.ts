import { Body, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import { SessionTemplatesService } from '#sessions';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { v2Page } from '../../http/v2-list.js';
import {
  CREATE_SESSION_TEMPLATE_EXAMPLES,
  CreateSessionTemplateDto,
  SessionTemplateDto,
  SessionTemplateListDto,
  toTemplateDto,
} from './session-template.dto.js';

const TEMPLATE_ID_EXAMPLE = 'tpl_01jh2x7v4ke8rbk3a8y0v0d7qz';

/** Registered before the sessions controller: `templates` must not be read as a session id. */
@ApiTags('Sessions (v2)')
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'sessions/templates', version: '2' })
export class SessionTemplatesV2Controller {
  constructor(private readonly templates: SessionTemplatesService) {}

  @Get()
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'List session templates',
    description:
      "The built-in templates, then your organisation's own (at most 100) by name, in one page. Pass a `template_id` to POST /v2/sessions/create to start from one.",
  })
  @ApiOkResponse({ type: SessionTemplateListDto })
  async list(@CurrentPrincipal() principal: Principal): Promise<SessionTemplateListDto> {
    // One page: built-in templates plus at most 100 of the organisation's own.
    const rows = await this.templates.list(principal);
    return v2Page(
      'sessionTemplate',
      { rows, total: rows.length, before: 0 },
      rows.length,
      toTemplateDto,
    );
  }

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({ summary: 'Create a session template for your organisation' })
  @ApiResponse({
    status: 409,
    description: 'The name is taken, or the organisation already has 100 templates',
    type: ErrorEnvelopeDto,
  })
  @ApiJsonBody(CreateSessionTemplateDto, CREATE_SESSION_TEMPLATE_EXAMPLES)
  @ApiCreatedResponse({ type: SessionTemplateDto })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateSessionTemplateDto,
  ): Promise<SessionTemplateDto> {
    return toTemplateDto(
      await this.templates.create(principal, {
        name: body.name,
        description: body.description,
        type: body.type,
        modality: body.modality,
        durationMinutes: body.duration_minutes,
        privacyLevel: body.privacy_level,
      }),
    );
  }

  @Get(':template_id')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({ summary: 'Read a session template' })
  @ResourceParam('template_id', TEMPLATE_ID_EXAMPLE, 'session template')
  @ApiOkResponse({ type: SessionTemplateDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('template_id') id: string,
  ): Promise<SessionTemplateDto> {
    return toTemplateDto(await this.templates.get(principal, id));
  }

  @Delete(':template_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({ summary: "Delete one of your organisation's templates" })
  @ResourceParam('template_id', TEMPLATE_ID_EXAMPLE, 'session template')
  @ApiResponse({ status: 409, description: 'A built-in template', type: ErrorEnvelopeDto })
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('template_id') id: string,
  ): Promise<void> {
    await this.templates.delete(principal, id);
  }
}
