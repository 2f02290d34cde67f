import { ScimGroupMemberEntity } from './directory/scim-group-member.entity.js';
import { ScimGroupEntity } from './directory/scim-group.entity.js';
import { ScimTokenEntity } from './tokens/scim-token.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const SCIM_ENTITIES: (new () => object)[] = [
  ScimTokenEntity,
  ScimGroupEntity,
  ScimGroupMemberEntity,
];
