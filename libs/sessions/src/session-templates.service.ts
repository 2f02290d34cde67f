import { Injectable } from '@nestjs/common';
import {
  AppError,
  newUuid,
  parsePublicId,
  type Modality,
  type PrivacyLevel,
  type SessionType,
  type Tenant,
} from '#common';
import { Sql } from '#database';
import { SESSION_DEFAULTS } from './session-request.js';

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

/** A template as a create request asks for it: settings left out take the sessions' defaults. */
export type SessionTemplateRequest = Pick<NewSessionTemplate, 'name' | 'type'> &
  Partial<
    Pick<NewSessionTemplate, 'description' | 'modality' | 'durationMinutes' | 'privacyLevel'>
  >;

/** Templates an organisation may keep besides the built-in ones. */
export const MAX_TEMPLATES_PER_ORGANIZATION = 100;

/** Fixed UUIDs (version 7 form, time 0), so built-in template ids never change. */
const builtIn = (n: number, template: NewSessionTemplate): SessionTemplate => ({
  ...template,
  id: `00000000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`,
  builtIn: true,
  createdAt: null,
});

export const BUILT_IN_TEMPLATES: readonly SessionTemplate[] = [
  builtIn(1, {
    name: 'Standard remote viewing',
    description: 'A 30-minute visual remote-viewing session; results private to the organisation.',
    type: 'remote_viewing',
    modality: 'visual',
    durationMinutes: 30,
    privacyLevel: 'private',
  }),
  builtIn(2, {
    name: 'Quick dowsing',
    description: 'A 10-minute kinesthetic dowsing session.',
    type: 'dowsing',
    modality: 'kinesthetic',
    durationMinutes: 10,
    privacyLevel: 'private',
  }),
  builtIn(3, {
    name: 'Extended automatic writing',
    description: 'A 90-minute automatic-writing session.',
    type: 'automatic_writing',
    modality: null,
    durationMinutes: 90,
    privacyLevel: 'private',
  }),
  builtIn(4, {
    name: 'Classified remote viewing',
    description:
      'A 60-minute remote-viewing session kept out of history search and exports, its target never logged.',
    type: 'remote_viewing',
    modality: 'visual',
    durationMinutes: 60,
    privacyLevel: 'classified',
  }),
];

const UNIQUE_VIOLATION = '23505';

interface TemplateRow {
  id: string;
  name: string;
  description: string;
  type: SessionType;
  modality: Modality | null;
  duration_minutes: number;
  privacy_level: PrivacyLevel;
  created_at: Date;
}

const TEMPLATE_COLUMNS =
  'id, name, description, type, modality, duration_minutes, privacy_level, created_at';

/** Named session presets: the built-in ones and each organisation's own. */
@Injectable()
export class SessionTemplatesService {
  constructor(private readonly sql: Sql) {}

  /** The built-in templates, then the organisation's own by name. */
  async list(tenant: Tenant): Promise<SessionTemplate[]> {
    const own = await this.sql.rows<TemplateRow>(
      `SELECT ${TEMPLATE_COLUMNS} FROM session_templates
        WHERE organization_id = $1 AND mode = $2 ORDER BY name`,
      [tenant.organizationId, tenant.mode],
    );
    return [...BUILT_IN_TEMPLATES, ...own.map(fromRow)];
  }

  /** A template by public id, else NOT_FOUND. */
  async get(tenant: Tenant, publicId: string): Promise<SessionTemplate> {
    const template = await this.find(tenant, publicId);
    if (!template) throw AppError.notFound('session template', publicId);
    return template;
  }

  /** The template a request names in `field`, else INVALID_REQUEST naming it. */
  async resolve(tenant: Tenant, publicId: string, field: string): Promise<SessionTemplate> {
    const template = await this.find(tenant, publicId);
    if (!template) {
      throw AppError.invalid(field, 'is not a built-in template or one of your organisation');
    }
    return template;
  }

  private async find(tenant: Tenant, publicId: string): Promise<SessionTemplate | null> {
    const id = parsePublicId('sessionTemplate', publicId);
    if (id === null) return null;
    const builtInTemplate = BUILT_IN_TEMPLATES.find((template) => template.id === id);
    if (builtInTemplate) return builtInTemplate;
    const [own] = await this.sql.rows<TemplateRow>(
      `SELECT ${TEMPLATE_COLUMNS} FROM session_templates
        WHERE id = $1 AND organization_id = $2 AND mode = $3`,
      [id, tenant.organizationId, tenant.mode],
    );
    return own ? fromRow(own) : null;
  }

  async create(tenant: Tenant, request: SessionTemplateRequest): Promise<SessionTemplate> {
    const input: NewSessionTemplate = {
      name: request.name,
      description: request.description ?? '',
      type: request.type,
      modality: request.modality ?? SESSION_DEFAULTS.modality,
      durationMinutes: request.durationMinutes ?? SESSION_DEFAULTS.durationMinutes,
      privacyLevel: request.privacyLevel ?? SESSION_DEFAULTS.privacyLevel,
    };
    const [{ count }] = (await this.sql.rows<{ count: number }>(
      'SELECT count(*)::int AS count FROM session_templates WHERE organization_id = $1 AND mode = $2',
      [tenant.organizationId, tenant.mode],
    )) as [{ count: number }];
    if (count >= MAX_TEMPLATES_PER_ORGANIZATION) {
      throw new AppError(
        'CONFLICT',
        `An organisation keeps at most ${MAX_TEMPLATES_PER_ORGANIZATION} templates`,
        {
          field: 'name',
          issue: `delete a template first; the limit is ${MAX_TEMPLATES_PER_ORGANIZATION}`,
        },
      );
    }
    if (
      BUILT_IN_TEMPLATES.some(
        (template) => template.name.toLowerCase() === input.name.toLowerCase(),
      )
    ) {
      throw duplicateName(input.name);
    }
    try {
      const [created] = await this.sql.rows<TemplateRow>(
        `INSERT INTO session_templates
           (id, organization_id, mode, name, description, type, modality, duration_minutes, privacy_level)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${TEMPLATE_COLUMNS}`,
        [
          newUuid(),
          tenant.organizationId,
          tenant.mode,
          input.name,
          input.description,
          input.type,
          input.modality,
          input.durationMinutes,
          input.privacyLevel,
        ],
      );
      return fromRow(created!);
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw duplicateName(input.name);
      throw error;
    }
  }

  async delete(tenant: Tenant, publicId: string): Promise<void> {
    const template = await this.get(tenant, publicId);
    if (template.builtIn) {
      throw new AppError('CONFLICT', 'Built-in templates cannot be deleted', {
        field: 'template_id',
        issue: 'is a built-in template',
      });
    }
    await this.sql.rows('DELETE FROM session_templates WHERE id = $1', [template.id]);
  }
}

function duplicateName(name: string): AppError {
  return new AppError('CONFLICT', `A template named "${name}" already exists`, {
    field: 'name',
    issue: 'is already taken',
  });
}

function fromRow(row: TemplateRow): SessionTemplate {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    modality: row.modality,
    durationMinutes: row.duration_minutes,
    privacyLevel: row.privacy_level,
    builtIn: false,
    createdAt: row.created_at,
  };
}
