import type { Request } from 'express';
import type { Member } from '#auth';
import type { Principal } from '#common';
import type { ScimCaller } from '#scim';
import type { SandboxMark } from './sandbox.js';

/** What the HTTP layer attaches to a request. */
export interface ApiRequest extends Request, SandboxMark {
  id: string;
  principal?: Principal;
  /** Set when the principal is a person's access token. */
  member?: Member;
  /** Set on the SCIM service's routes: the organisation whose SCIM token called. */
  scim?: ScimCaller;
}

/** Version 2 routes answer errors in the version 2 form. */
export function isVersion2(request: Request): boolean {
  return request.path.startsWith('/v2/');
}
