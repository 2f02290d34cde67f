import { Injectable } from '@nestjs/common';
import type { Modality, PrivacyLevel, SessionType, Tenant } from '#common';
import { rowMapping, Sql, type Queryable, type Transaction } from '#database';

/** A named preset of session settings: a built-in one, or one an organisation keeps. */
export interface SessionTemplate {
  /** Stored UUID. */
  id: string;
  name: string;
  description: string;
  type: SessionType;
  modality: Modality | null;
  durationMinutes: number;
  privacyLevel: PrivacyLevel;
  builtIn: boolean;
  createdAt: Date | null;
}

export type NewSessionTemplate = Omit<SessionTemplate, 'id' | 'builtIn' | 'createdAt'>;

/** What an organisation's own template is stored as: a template that is not built in. */
type StoredTemplate = Omit<SessionTemplate, 'builtIn'>;

type TemplateColumn =
  | 'id'
  | 'name'
  | 'description'
  | 'type'
  | 'modality'
  | 'duration_minutes'
  | 'privacy_level'
  | 'created_at';

type TemplateRow = Record<TemplateColumn, unknown>;

/** The columns read back; the tenant's are in every statement's conditions instead. */
const TEMPLATE = rowMapping<StoredTemplate, TemplateColumn>('session_templates', {
  id: 'id',
  name: 'name',
  description: 'description',
  type: 'type',
  modality: 'modality',
  duration_minutes: 'durationMinutes',
  privacy_level: 'privacyLevel',
  created_at: 'createdAt',
});

/** The `session_templates` table: each organisation's own presets, per mode. */
@Injectable()
export class SessionTemplatesRepository {
  constructor(private readonly sql: Sql) {}

  /** The tenant's templates by name. */
  async list(tenant: Tenant, on: Queryable = this.sql): Promise<SessionTemplate[]> {
    const rows = await on.rows<TemplateRow>(
      `SELECT ${TEMPLATE.selectList} FROM session_templates
        WHERE organization_id = $1 AND mode = $2 ORDER BY name`,
      [tenant.organizationId, tenant.mode],
    );
    return rows.map(templateFromRow);
  }

  async find(
    tenant: Tenant,
    id: string,
    on: Queryable = this.sql,
  ): Promise<SessionTemplate | null> {
    const [row] = await on.rows<TemplateRow>(
      `SELECT ${TEMPLATE.selectList} FROM session_templates
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return row ? templateFromRow(row) : null;
  }

  async count(tenant: Tenant, on: Queryable = this.sql): Promise<number> {
    const [{ count }] = (await on.rows<{ count: number }>(
      'SELECT count(*)::int AS count FROM session_templates WHERE organization_id = $1 AND mode = $2',
      [tenant.organizationId, tenant.mode],
    )) as [{ count: number }];
    return count;
  }

  /**
   * Stores a new template, its creation time the database's; a name the
   * tenant already uses fails with PostgreSQL's unique violation (23505).
   */
  async insert(
    tx: Transaction,
    tenant: Tenant,
    id: string,
    template: NewSessionTemplate,
  ): Promise<SessionTemplate> {
    const [created] = await tx.rows<TemplateRow>(
      `INSERT INTO session_templates
         (id, organization_id, mode, name, description, type, modality, duration_minutes, privacy_level)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${TEMPLATE.selectList}`,
      [
        id,
        tenant.organizationId,
        tenant.mode,
        template.name,
        template.description,
        template.type,
        template.modality,
        template.durationMinutes,
        template.privacyLevel,
      ],
    );
    return templateFromRow(created!);
  }

  async delete(tx: Transaction, tenant: Tenant, id: string): Promise<void> {
    await tx.query(
      'DELETE FROM session_templates WHERE id = $1 AND organization_id = $2 AND mode = $3',
      [id, tenant.organizationId, tenant.mode],
    );
  }
}

function templateFromRow(row: TemplateRow): SessionTemplate {
  return { ...TEMPLATE.fromRow(row), builtIn: false };
}
