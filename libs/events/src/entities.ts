import { AuditEventEntity } from './audit/audit-event.entity.js';
import { EventEntity } from './event.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const EVENT_ENTITIES = [EventEntity, AuditEventEntity];
