import {
  Body,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Scope, type Principal } from '#common';
import type { Response } from 'express';
import { Audited } from '../../http/audited.decorator.js';
import { ApiController } from '../../http/api-controller.decorator.js';
import { servedFile } from '../../http/served-files.js';
import { SessionsService, SessionListsService } from '#sessions';
import { Auth, CurrentPrincipal, RequestId } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { v1Page } from '../../http/v1-list.dto.js';
import { CREATE_SESSION_V1_EXAMPLES, CreateSessionV1Dto } from './create-session-v1.dto.js';
import {
  SessionCreatedV1Dto,
  SessionListQueryV1Dto,
  SessionListV1Dto,
  SessionResultsEnvelopeV1Dto,
  SessionStatusV1Dto,
} from './session-v1.dto.js';
import { toCreatedV1, toNewSession, toResultsV1, toStatusV1 } from './session-v1.mapper.js';
import { ApiConcurrentSessionsLimit } from '../concurrency-limit.decorator.js';
import { LinkBase } from '../../http/sandbox.js';

@ApiTags('Sessions (v1)')
@ApiResponse({ status: 400, description: 'Invalid request', type: ErrorEnvelopeDto })
@ApiController({ path: 'sessions', version: '1' })
export class SessionsV1Controller {
  constructor(
    private readonly sessions: SessionsService,
    private readonly lists: SessionListsService,
  ) {}

  @Post()
  @ApiConcurrentSessionsLimit()
  @HttpCode(201)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Create a session',
    description: 'Runs asynchronously; poll the status or listen for events.',
  })
  @ApiJsonBody(CreateSessionV1Dto, CREATE_SESSION_V1_EXAMPLES)
  @ApiCreatedResponse({ type: SessionCreatedV1Dto })
  @ApiJsonBodyRefusals()
  async create(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Body() body: CreateSessionV1Dto,
  ): Promise<SessionCreatedV1Dto> {
    const session = await this.sessions.create(principal, toNewSession(body), requestId);
    return toCreatedV1(session);
  }

  @Get()
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: "List your organisation's sessions in the caller's mode, newest first",
    description:
      'Filter by `status` and `type`; page with `limit` (1–100, default 20) and `offset`.',
  })
  @ApiOkResponse({ type: SessionListV1Dto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: SessionListQueryV1Dto,
  ): Promise<SessionListV1Dto> {
    return v1Page(
      query,
      (page) => this.lists.list(principal, { status: query.status, type: query.type }, page),
      toStatusV1,
    );
  }

  @Post(':session_id/cancel')
  @HttpCode(200)
  @Auth({ scopes: [Scope.SessionsWrite] })
  @ApiOperation({
    summary: 'Cancel a session',
    description:
      'An `initiated` or `in_progress` session becomes `failed` with `failure_reason` `cancelled`, and `session.failed` is sent. A session that has already completed or failed answers 409.',
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiResponse({
    status: 409,
    description: 'The session has already finished',
    type: ErrorEnvelopeDto,
  })
  @ApiOkResponse({ type: SessionStatusV1Dto })
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @RequestId() requestId: string,
    @Param('session_id') id: string,
  ): Promise<SessionStatusV1Dto> {
    return toStatusV1(await this.sessions.cancel(principal, id, requestId));
  }

  @Delete(':session_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.SessionsDelete] })
  @Audited('session.deleted')
  @ApiOperation({
    summary: 'Delete a session',
    description:
      'Removes the session and its results; the events that named it keep only the session id and sequence (`"redacted": true`), so replays send nothing of it. An audit record keeps who deleted it and when. A running session stops.',
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('session_id') id: string,
  ): Promise<void> {
    await this.sessions.delete(principal, id);
  }

  @Get(':session_id')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({ summary: 'Read the status of a session' })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiOkResponse({ type: SessionStatusV1Dto })
  async status(
    @CurrentPrincipal() principal: Principal,
    @Param('session_id') id: string,
  ): Promise<SessionStatusV1Dto> {
    return toStatusV1(await this.sessions.get(principal, id));
  }

  @Get(':session_id/results')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'Read the results of a session',
    description: '`results` appears once the session has completed.',
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiOkResponse({ type: SessionResultsEnvelopeV1Dto })
  async results(
    @CurrentPrincipal() principal: Principal,
    @Param('session_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<SessionResultsEnvelopeV1Dto> {
    const session = await this.sessions.get(principal, id);
    return toResultsV1(session, (index) => this.sessions.sketchUrl(session, index, linkBase));
  }

  @Get(':session_id/sketches/:file')
  @Auth({ scopes: [Scope.SessionsRead] })
  @Header('Cache-Control', 'private, max-age=86400, immutable')
  @ApiOperation({
    summary: 'A sketch of a completed session',
    description:
      "The simulated engine's sketches are SVG drawn from its seed (`0.svg`, `1.svg`, …); analysts' uploads are served as stored (`skt_….png`, `.jpg`, `.svg` — SVG sanitised on upload), inert under `Content-Security-Policy: default-src 'none'; sandbox`. `results.sketches[].url` names each.",
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiParam({ name: 'file', example: '0.svg' })
  // Only the image is an image: the route's errors are the JSON envelope, as everywhere.
  @ApiOkResponse({
    description: 'The sketch',
    content: {
      'image/svg+xml': { schema: { type: 'string' } },
      'image/png': { schema: { type: 'string', format: 'binary' } },
      'image/jpeg': { schema: { type: 'string', format: 'binary' } },
    },
  })
  async sketch(
    @CurrentPrincipal() principal: Principal,
    @Param('session_id') id: string,
    @Param('file') file: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<string | StreamableFile> {
    const sketch = await this.sessions.sketch(principal, id, file);
    if (sketch.uploaded) {
      return servedFile(
        { contentType: sketch.contentType, bytes: sketch.body as Buffer },
        response,
      );
    }
    response.setHeader('Content-Type', sketch.contentType);
    response.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    return sketch.body as string;
  }
}
