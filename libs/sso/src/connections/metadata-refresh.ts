import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppError } from '#common';
import { Sql } from '#database';
import { AuditLog, type AuditActor } from '#events';
import { OutboundFetcher } from '#outbound';
import { PeriodicTasks } from '#queue';
import { connectionTarget, idpChanges } from './connection-audit.js';
import { fetchIdpMetadata } from './connection-config.js';
import type { SamlConfig } from './sso-connection.js';
import { SsoConnectionsRepository } from './sso-connections.repository.js';

const DAY_MS = 24 * 3600 * 1000;
/** Connections refreshed per run at most; the next run takes the rest. */
const BATCH = 100;
/** Who changes a connection's IdP settings when its metadata says so. */
const REFRESH_ACTOR: AuditActor = { type: 'system', id: 'sso.metadata-refresh' };

/**
 * IdPs rotate their signing certificates by publishing the new one in their
 * metadata first: the worker reads each connection's `idp_metadata_url` again
 * once a day and keeps what it says. A fetch or parse that fails leaves the
 * connection as it was (it keeps signing people in with the last good
 * metadata) and is tried again at the next run. Metadata that changes the
 * IdP's entity id, SSO URL or certificates is an `sso_connection.updated`
 * audit event of the connection, its actor the service itself.
 */
@Injectable()
export class IdpMetadataRefresh implements OnModuleInit {
  private readonly logger = new Logger(IdpMetadataRefresh.name);

  constructor(
    private readonly sql: Sql,
    private readonly connections: SsoConnectionsRepository,
    private readonly fetcher: OutboundFetcher,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({ name: 'sso.metadata-refresh', everyMs: 3600_000, run: () => this.run() });
  }

  async run(now = new Date()): Promise<{ refreshed: number; failed: number }> {
    const due = await this.connections.metadataDueAcrossTenants(
      new Date(now.getTime() - DAY_MS),
      BATCH,
    );
    let refreshed = 0;
    let failed = 0;
    for (const { id, organizationId, config } of due) {
      try {
        const idp = await fetchIdpMetadata(config.idpMetadataUrl!, this.fetcher);
        const next: SamlConfig = {
          ...config,
          idpEntityId: idp.entityId,
          idpSsoUrl: idp.ssoUrl,
          idpCertificates: idp.certificates,
        };
        await this.sql.transaction(async (tx) => {
          await this.connections.storeMetadata(tx, organizationId, id, next, now);
          const changes = idpChanges(config, next);
          if (changes === null) return;
          // Connections are live-mode things, whichever mode one was made in.
          await AuditLog.record(
            tx,
            { organizationId, mode: 'live' },
            {
              action: 'sso_connection.updated',
              actor: REFRESH_ACTOR,
              target: connectionTarget(id),
              changes,
            },
          );
        });
        refreshed += 1;
      } catch (error) {
        failed += 1;
        this.logger.warn(
          {
            connectionId: id,
            issue: error instanceof AppError ? error.details.issue : String(error),
          },
          'IdP metadata not refreshed; the connection keeps the last good metadata',
        );
      }
    }
    return { refreshed, failed };
  }
}
