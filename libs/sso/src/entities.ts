import { SsoConnectionEntity } from './connections/sso-connection.entity.js';
import { SsoEmailDomainEntity } from './connections/sso-email-domain.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const SSO_ENTITIES: (new () => object)[] = [SsoConnectionEntity, SsoEmailDomainEntity];
