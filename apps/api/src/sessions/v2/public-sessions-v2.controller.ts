import { Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Scope } from '#common';
import { SessionsService } from '#sessions';
import { ApiController } from '../../http/api-controller.decorator.js';
import { Auth } from '../../http/auth.decorator.js';
import { ResourceParam } from '../../http/resource-param.decorator.js';
import { SessionV2Dto } from './session-v2.dto.js';
import { toSessionV2 } from './session-v2.mapper.js';
import { LinkBase } from '../../http/sandbox.js';

/**
 * Read-only sharing of `public` sessions: their owner hands out the session
 * id, and any caller of any organisation holding `sessions:read` can read
 * it here. Nothing else about the session is reachable from outside its
 * organisation; private and classified sessions answer 404 as if absent.
 */
@ApiTags('Sessions (v2)')
@ApiController({ path: 'public/sessions', version: '2' })
export class PublicSessionsV2Controller {
  constructor(private readonly sessions: SessionsService) {}

  @Get(':session_id')
  @Auth({ scopes: [Scope.SessionsRead] })
  @ApiOperation({
    summary: 'Read a session shared publicly by any organisation',
    description:
      "A session created with `privacy_level: public` can be shared read-only by handing out its id: any authenticated caller with `sessions:read`, of any organisation and mode, reads it here in the version 2 shape. Only reads are shared; cancelling, merging or deleting it stays with its own organisation. A private or classified session's id answers 404, the same as an unknown one.\n\nShared outside its organisation, a session shows its target, status, results and their aggregate figures (coordinates, descriptors, sketches, confidence, validation), never its people: `metadata.analyst_id` is null and `results.collaborative_insights` is empty (each analyst's id and the first line of their notes stay with the organisation, at `GET /v2/sessions/{session_id}`).",
  })
  @ResourceParam('session_id', 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', 'session')
  @ApiOkResponse({ type: SessionV2Dto })
  async get(@Param('session_id') id: string, @LinkBase() linkBase: string): Promise<SessionV2Dto> {
    const session = await this.sessions.getPublic(id);
    return sharedView(
      toSessionV2(session, (index) => this.sessions.sketchUrl(session, index, linkBase)),
    );
  }
}

/**
 * What a shared session shows, to any caller (its own organisation reads the
 * whole session at /v2/sessions/{id}): its target, status, outcome and
 * aggregate results, never its people — no analyst id (`metadata.analyst_id`
 * is null) and no per-analyst insights (`collaborative_insights` is empty),
 * whose key insights quote the first line of each analyst's notes.
 */
function sharedView(session: SessionV2Dto): SessionV2Dto {
  return {
    ...session,
    metadata: { ...session.metadata, analyst_id: null },
    ...(session.results && { results: { ...session.results, collaborative_insights: [] } }),
  };
}
