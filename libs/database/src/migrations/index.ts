import { Initial1763856000000 } from './1763856000000-initial.js';
import { OneBootstrapOrganization1763863200000 } from './1763863200000-one-bootstrap-organization.js';
import { AuthorizationServer1763949600000 } from './1763949600000-authorization-server.js';
import { Webhooks1764036000000 } from './1764036000000-webhooks.js';
import { AuditRecords1764043200000 } from './1764043200000-audit-records.js';
import { SessionTemplates1764046800000 } from './1764046800000-session-templates.js';
import { Batches1764050400000 } from './1764050400000-batches.js';
import { CollaborativeSessions1764054000000 } from './1764054000000-collaborative-sessions.js';
import { SessionListIndexes1764057600000 } from './1764057600000-session-list-indexes.js';
import { OrganizationLimits1764061200000 } from './1764061200000-organization-limits.js';
import { IdempotencyKeys1764064800000 } from './1764064800000-idempotency-keys.js';
import { IdempotencySealedResponses1764068400000 } from './1764068400000-idempotency-sealed-responses.js';
import { HashedOauthTokenIds1764072000000 } from './1764072000000-hashed-oauth-token-ids.js';
import { Analyses1764075600000 } from './1764075600000-analyses.js';
import { Dowsing1764079200000 } from './1764079200000-dowsing.js';
import { DowsingHeatmapTiles1764082800000 } from './1764082800000-dowsing-heatmap-tiles.js';
import { HistoryCases1764086400000 } from './1764086400000-history-cases.js';
import { HistoryRollups1764090000000 } from './1764090000000-history-rollups.js';
import { Reports1764093600000 } from './1764093600000-reports.js';
import { HistoryRollupGrains1764097200000 } from './1764097200000-history-rollup-grains.js';
import { SsoConnections1764100800000 } from './1764100800000-sso-connections.js';
import { SsoUsers1764104400000 } from './1764104400000-sso-users.js';
import { AnalystWork1764108000000 } from './1764108000000-analyst-work.js';
import { SsoJitRoles1764111600000 } from './1764111600000-sso-jit-roles.js';
import { WebhookDeliverySlots1764115200000 } from './1764115200000-webhook-delivery-slots.js';
import { HistoryRollupsInsertNoPrune1764118800000 } from './1764118800000-history-rollups-insert-no-prune.js';
import { SsoDomainVerification1764122400000 } from './1764122400000-sso-domain-verification.js';
import { HistoryCasesWrittenByHistory1764126000000 } from './1764126000000-history-cases-written-by-history.js';
import { AuditEvents1764129600000 } from './1764129600000-audit-events.js';
import { Scim1764133200000 } from './1764133200000-scim.js';

/** Every migration, in order. Listed explicitly: ESM builds have no directory globbing. */
export const MIGRATIONS = [
  Initial1763856000000,
  OneBootstrapOrganization1763863200000,
  AuthorizationServer1763949600000,
  Webhooks1764036000000,
  AuditRecords1764043200000,
  SessionTemplates1764046800000,
  Batches1764050400000,
  CollaborativeSessions1764054000000,
  SessionListIndexes1764057600000,
  OrganizationLimits1764061200000,
  IdempotencyKeys1764064800000,
  IdempotencySealedResponses1764068400000,
  HashedOauthTokenIds1764072000000,
  Analyses1764075600000,
  Dowsing1764079200000,
  DowsingHeatmapTiles1764082800000,
  HistoryCases1764086400000,
  HistoryRollups1764090000000,
  Reports1764093600000,
  HistoryRollupGrains1764097200000,
  SsoConnections1764100800000,
  SsoUsers1764104400000,
  AnalystWork1764108000000,
  SsoJitRoles1764111600000,
  WebhookDeliverySlots1764115200000,
  HistoryRollupsInsertNoPrune1764118800000,
  SsoDomainVerification1764122400000,
  HistoryCasesWrittenByHistory1764126000000,
  AuditEvents1764129600000,
  Scim1764133200000,
];
