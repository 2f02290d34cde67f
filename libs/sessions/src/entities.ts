import { SessionEntity } from './entities/session.entity.js';
import { SessionTemplateEntity } from './entities/session-template.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const SESSION_ENTITIES = [SessionEntity, SessionTemplateEntity];
