import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Mode, Tenant } from '#common';
import { Sql } from './sql.js';

/**
 * Whether an organisation holds an id in its other mode, so that a 404 can
 * say "it exists in live mode, and this credential is test-mode" instead of
 * leaving a test key's caller to think a live session lost. Every entity
 * with a uuid `id`, an `organization_id` and a `mode` is asked, read off the
 * entity metadata: a table added tomorrow is covered the day it exists.
 * Only the caller's own organisation is searched, and only on a 404.
 */
@Injectable()
export class OtherModeRepository {
  private statement: string | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sql: Sql,
  ) {}

  /** The other mode of the tenant's organisation when it holds `uuid`, else null. */
  async holding(tenant: Tenant, uuid: string): Promise<Mode | null> {
    const rows = await this.sql.rows<{ mode: Mode }>(this.statementText(), [
      uuid,
      tenant.organizationId,
      tenant.mode,
    ]);
    return rows[0]?.mode ?? null;
  }

  /** The tables asked, for the test that holds this to every mode-owned table. */
  tables(): string[] {
    return this.dataSource.entityMetadatas
      .filter((metadata) => {
        const column = (name: string) =>
          metadata.columns.find((candidate) => candidate.databaseName === name);
        const id = column('id');
        return (
          id?.isPrimary === true &&
          id.type === 'uuid' &&
          column('organization_id') !== undefined &&
          column('mode') !== undefined
        );
      })
      .map((metadata) => metadata.tableName)
      .sort();
  }

  private statementText(): string {
    this.statement ??= `${this.tables()
      .map(
        (table) =>
          `(SELECT mode FROM ${table} WHERE id = $1 AND organization_id = $2 AND mode <> $3)`,
      )
      .join(' UNION ALL ')} LIMIT 1`;
    return this.statement;
  }
}
