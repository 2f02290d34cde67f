import { Injectable } from '@nestjs/common';
import { AppError, newUuid, parsePublicId, type Tenant } from '#common';
import { Sql } from '#database';
import { SESSION_DEFAULTS } from './session-request.js';
import {
  SessionTemplatesRepository,
  type NewSessionTemplate,
  type SessionTemplate,
} from './session-templates.repository.js';

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

/** Named session presets: the built-in ones and each organisation's own. */
@Injectable()
export class SessionTemplatesService {
  constructor(
    private readonly sql: Sql,
    private readonly templates: SessionTemplatesRepository,
  ) {}

  /** The built-in templates, then the organisation's own by name. */
  async list(tenant: Tenant): Promise<SessionTemplate[]> {
    return [...BUILT_IN_TEMPLATES, ...(await this.templates.list(tenant))];
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
    return this.templates.find(tenant, id);
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
    if ((await this.templates.count(tenant)) >= MAX_TEMPLATES_PER_ORGANIZATION) {
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
      return await this.sql.transaction((tx) =>
        this.templates.insert(tx, tenant, newUuid(), input),
      );
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
    await this.sql.transaction((tx) => this.templates.delete(tx, tenant, template.id));
  }
}

function duplicateName(name: string): AppError {
  return new AppError('CONFLICT', `A template named "${name}" already exists`, {
    field: 'name',
    issue: 'is already taken',
  });
}
