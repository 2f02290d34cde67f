import { OrganizationEntity } from './organization.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const ORGANIZATION_ENTITIES = [OrganizationEntity];
