import { Readable } from 'node:stream';
import { Get, Query, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Scope, type Principal } from '#common';
import { AuditEventsRepository, type AuditEventFilter } from '#events';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { pageRequest, v2Page } from '../../http/v2-list.js';
import {
  AuditEventDto,
  AuditEventListQueryDto,
  AuditEventListV2Dto,
  toAuditEventDto,
} from './audit-event-v2.dto.js';

export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

@ApiTags('Audit log (v2)')
@ApiExtraModels(AuditEventDto, AuditEventListV2Dto)
@ApiResponse({ status: 400, description: 'VALIDATION_ERROR', type: ErrorEnvelopeDto })
@ApiController({ path: 'audit-events', version: '2' })
export class AuditEventsV2Controller {
  constructor(private readonly auditEvents: AuditEventsRepository) {}

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'List audit events, newest first, or export them as NDJSON',
    description: `Every security-relevant change of your organisation in the credential's mode, recorded in the transaction that made it: API keys, OAuth clients, webhooks, SSO connections, SCIM tokens, people and groups, the organisation, sign-ins, deletions of work (docs/audit-log.md lists the actions). Who acted (\`actor\`), on what (\`target\`), from where (\`ip\`, \`user_agent\`, \`request_id\`) and what changed (\`changes\`, secrets never). Kept for AUDIT_RETENTION_DAYS (default 365); no route changes or deletes an event. People's tokens need the admin role. \`Accept: ${NDJSON_MEDIA_TYPE}\` streams the whole selection (the filters apply; \`cursor\` and \`per_page\` do not), one event per line.`,
  })
  @ApiProduces('application/json', NDJSON_MEDIA_TYPE)
  @ApiOkResponse({
    description: `A page (\`application/json\`, default) or every matching event, one JSON object per line (\`${NDJSON_MEDIA_TYPE}\`)`,
    content: {
      'application/json': { schema: { $ref: getSchemaPath(AuditEventListV2Dto) } },
      [NDJSON_MEDIA_TYPE]: {
        schema: { type: 'string', description: `Lines, each an ${AuditEventDto.name}` },
      },
    },
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditEventListQueryDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AuditEventListV2Dto | StreamableFile> {
    const filter: AuditEventFilter = {
      action: query.action,
      actorId: query.actor_id,
      targetId: query.target_id,
      createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
      createdBefore:
        query.created_before === undefined ? undefined : new Date(query.created_before),
    };
    response.vary('Accept');
    if (request.accepts(['application/json', NDJSON_MEDIA_TYPE]) === NDJSON_MEDIA_TYPE) {
      response.setHeader('Cache-Control', 'private, no-store');
      return new StreamableFile(Readable.from(this.lines(principal, filter)), {
        type: NDJSON_MEDIA_TYPE,
        disposition: 'attachment; filename="audit-events.ndjson"',
      });
    }
    const page = await this.auditEvents.page(principal, filter, pageRequest('auditEvent', query));
    return v2Page('auditEvent', page, query.per_page, toAuditEventDto);
  }

  private async *lines(principal: Principal, filter: AuditEventFilter): AsyncGenerator<string> {
    for await (const event of this.auditEvents.all(principal, filter)) {
      yield `${JSON.stringify(toAuditEventDto(event))}\n`;
    }
  }
}
