import { Body, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { TargetsService, TARGET_PHOTO_TYPES } from '#analysts';
import { Scope, type Principal } from '#common';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth, CurrentPrincipal } from '../../http/auth.decorator.js';
import { ErrorEnvelopeDto } from '../../http/error-envelope.dto.js';
import { ApiJsonBody, ApiJsonBodyRefusals } from '../../http/request-examples.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { pageRequest, v2Page, V2ListQueryDto } from '../../http/v2-list.js';
import { TargetDto, TargetListDto } from './target-response-v2.dto.js';
import {
  CREATE_TARGET_EXAMPLES,
  CreateTargetDto,
  TARGET_ID_EXAMPLE,
  TARGET_PHOTO_ID_EXAMPLE,
} from './target-v2.dto.js';
import { toTargetDto } from './target-v2.mapper.js';
import { LinkBase } from '../../http/sandbox.js';

/** How long a client may keep a photo: its bytes never change under its id. */
const PHOTO_MAX_AGE_SECONDS = 86_400;

/**
 * The organisation's target pool (issue 18): the targets judging draws its
 * decoys from. Managed by the organisation's admins and clients
 * (`organizations:write`; reading `organizations:read`), per tenant: another
 * organisation's or mode's target is 404. Analysts and judges never reach it.
 */
@ApiTags('Target pool (v2)')
@ApiResponse({
  status: 400,
  description: 'VALIDATION_ERROR naming the field',
  type: ErrorEnvelopeDto,
})
@ApiController({ path: 'targets', version: '2' })
export class TargetsController {
  constructor(private readonly targets: TargetsService) {}

  @Post()
  @HttpCode(201)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Add a target to the pool',
    description:
      '`description` (1 to 2,000 characters), optional `descriptors` (ground truth for SAIC scoring: trimmed, lower-cased and de-duplicated, each 1 to 64 characters, at most 50), `coordinates` and up to 5 https `photos`. Photos are fetched while the request waits, under the outbound destination policy (https only, no private or internal addresses, at most 10 MiB and 10 s each); their type is read from the bytes and only PNG, JPEG, WebP and GIF are kept. A photo that fails (unreachable, refused, too large, not one of those images) is listed with `status: failed` and its `failure`: it never fails the target.',
  })
  @ApiJsonBody(CreateTargetDto, CREATE_TARGET_EXAMPLES)
  @ApiCreatedResponse({ type: TargetDto })
  @ApiJsonBodyRefusals()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateTargetDto,
    @LinkBase() linkBase: string,
  ): Promise<TargetDto> {
    const target = await this.targets.create(principal, {
      description: body.description,
      descriptors: body.descriptors,
      coordinates: body.coordinates ?? null,
      photos: body.photos,
    });
    return toTargetDto(target, linkBase);
  }

  @Get()
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: "The pool's targets in the caller's mode, newest first" })
  @ApiOkResponse({ type: TargetListDto })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: V2ListQueryDto,
    @LinkBase() linkBase: string,
  ): Promise<TargetListDto> {
    const page = await this.targets.page(principal, pageRequest('target', query));
    return v2Page('target', page, query.per_page, (target) => toTargetDto(target, linkBase));
  }

  @Get(':target_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({ summary: 'Read a target with its photos' })
  @ResourceParam('target_id', TARGET_ID_EXAMPLE, 'target')
  @ApiOkResponse({ type: TargetDto })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('target_id') id: string,
    @LinkBase() linkBase: string,
  ): Promise<TargetDto> {
    return toTargetDto(await this.targets.get(principal, id), linkBase);
  }

  @Delete(':target_id')
  @HttpCode(204)
  @Auth({ scopes: [Scope.OrganizationsWrite] })
  @ApiOperation({
    summary: 'Remove a target and its photos from the pool',
    description:
      'It is drawn as a decoy no more; judging tasks that already showed it keep what they showed.',
  })
  @ResourceParam('target_id', TARGET_ID_EXAMPLE, 'target')
  @ApiNoContentResponse({ description: 'Deleted' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('target_id') id: string,
  ): Promise<void> {
    await this.targets.delete(principal, id);
  }

  @Get(':target_id/photos/:photo_id')
  @Auth({ scopes: [Scope.OrganizationsRead] })
  @ApiOperation({
    summary: 'A stored photo of a target, as fetched',
    description:
      'The bytes stored when the target was added, with the type read from them. Served with `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`. A photo that failed has nothing stored: 404.',
  })
  @ResourceParam('target_id', TARGET_ID_EXAMPLE, 'target')
  @ResourceParam('photo_id', TARGET_PHOTO_ID_EXAMPLE, 'photo')
  // Only the image is binary: the route's errors are the JSON envelope, as everywhere.
  @ApiOkResponse({
    description: 'The image',
    content: Object.fromEntries(
      TARGET_PHOTO_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  })
  async photo(
    @CurrentPrincipal() principal: Principal,
    @Param('target_id') targetId: string,
    @Param('photo_id') photoId: string,
    @Res() response: Response,
  ): Promise<void> {
    const photo = await this.targets.photo(principal, targetId, photoId);
    response
      .status(200)
      .set({
        'Content-Type': photo.contentType,
        'Content-Length': String(photo.bytes.length),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        'Cache-Control': `private, max-age=${PHOTO_MAX_AGE_SECONDS}`,
      })
      .end(photo.bytes);
  }
}
