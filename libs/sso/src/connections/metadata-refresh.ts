import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppError } from '#common';
import { Sql } from '#database';
import { OutboundFetcher } from '#outbound';
import { PeriodicTasks } from '#queue';
import { fetchIdpMetadata } from './connection-config.js';
import type { SamlConfig } from './sso-connection.js';

const DAY_MS = 24 * 3600 * 1000;
/** Connections refreshed per run at most; the next run takes the rest. */
const BATCH = 100;

/**
 * IdPs rotate their signing certificates by publishing the new one in their
 * metadata first: the worker reads each connection's `idp_metadata_url` again
 * once a day and keeps what it says. A fetch or parse that fails leaves the
 * connection as it was (it keeps signing people in with the last good
 * metadata) and is tried again at the next run.
 */
@Injectable()
export class IdpMetadataRefresh implements OnModuleInit {
  private readonly logger = new Logger(IdpMetadataRefresh.name);

  constructor(
    private readonly sql: Sql,
    private readonly fetcher: OutboundFetcher,
    private readonly tasks: PeriodicTasks,
  ) {}

  onModuleInit(): void {
    this.tasks.register({ name: 'sso.metadata-refresh', everyMs: 3600_000, run: () => this.run() });
  }

  async run(now = new Date()): Promise<{ refreshed: number; failed: number }> {
    const due = await this.sql.rows<{ id: string; config: SamlConfig }>(
      `SELECT id, config FROM sso_connections
        WHERE type = 'saml' AND config->>'idpMetadataUrl' IS NOT NULL
          AND (metadata_fetched_at IS NULL OR metadata_fetched_at < $1)
        ORDER BY metadata_fetched_at NULLS FIRST LIMIT ${BATCH}`,
      [new Date(now.getTime() - DAY_MS)],
    );
    let refreshed = 0;
    let failed = 0;
    for (const { id, config } of due) {
      try {
        const idp = await fetchIdpMetadata(config.idpMetadataUrl!, this.fetcher);
        const next: SamlConfig = {
          ...config,
          idpEntityId: idp.entityId,
          idpSsoUrl: idp.ssoUrl,
          idpCertificates: idp.certificates,
        };
        await this.sql.rows(
          `UPDATE sso_connections SET config = $2, metadata_fetched_at = $3, updated_at = $3
            WHERE id = $1`,
          [id, JSON.stringify(next), now],
        );
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
