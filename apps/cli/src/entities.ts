import { ANALYSIS_ENTITIES } from '#analyses';
import { ANALYST_ENTITIES } from '#analysts';
import { API_KEY_ENTITIES } from '#api-keys';
import { AUTH_ENTITIES } from '#auth';
import { DOWSING_ENTITIES } from '#dowsing';
import { EVENT_ENTITIES } from '#events';
import { HISTORY_ENTITIES } from '#history';
import { IDEMPOTENCY_ENTITIES } from '#idempotency';
import { ORGANIZATION_ENTITIES } from '#organizations';
import { REPORT_ENTITIES } from '#reports';
import { SESSION_ENTITIES } from '#sessions';
import { WORK_ENTITIES } from '#work';
import { SSO_ENTITIES } from '#sso';
import { SCIM_ENTITIES } from '#scim';
import { WEBHOOK_ENTITIES } from '#webhooks';

/**
 * Every table of the service, as each lib declares the ones it owns: what
 * `npm run db:diff` compares the migrated schema with. (The apps need no such
 * list: each lib's module registers its own.)
 */
export const ALL_ENTITIES = [
  ...ORGANIZATION_ENTITIES,
  ...API_KEY_ENTITIES,
  ...AUTH_ENTITIES,
  ...EVENT_ENTITIES,
  ...SESSION_ENTITIES,
  ...WORK_ENTITIES,
  ...ANALYSIS_ENTITIES,
  ...DOWSING_ENTITIES,
  ...WEBHOOK_ENTITIES,
  ...IDEMPOTENCY_ENTITIES,
  ...ANALYST_ENTITIES,
  ...HISTORY_ENTITIES,
  ...REPORT_ENTITIES,
  ...SSO_ENTITIES,
  ...SCIM_ENTITIES,
];
