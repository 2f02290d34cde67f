import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import {
  AppError,
  newKey,
  parsePublicId,
  type Modality,
  type PrivacyLevel,
  type SessionType,
  type Tenant,
} from '#common';
import { SessionTemplateEntity } from '#database';

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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The built-in templates, then the organisation's own by name. */
  async list(tenant: Tenant): Promise<SessionTemplate[]> {
    const own = await this.dataSource.getRepository(SessionTemplateEntity).find({
      where: { organizationId: tenant.organizationId, mode: tenant.mode },
      order: { name: 'ASC' },
    });
    return [...BUILT_IN_TEMPLATES, ...own.map(fromEntity)];
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
    const own = await this.dataSource.getRepository(SessionTemplateEntity).findOneBy({
      id,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
    });
    return own ? fromEntity(own) : null;
  }

  async create(tenant: Tenant, input: NewSessionTemplate): Promise<SessionTemplate> {
    const repository = this.dataSource.getRepository(SessionTemplateEntity);
    const count = await repository.countBy({
      organizationId: tenant.organizationId,
      mode: tenant.mode,
    });
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
    const entity = repository.create({
      ...input,
      id: newKey('sessionTemplate').uuid,
      organizationId: tenant.organizationId,
      mode: tenant.mode,
    });
    try {
      return fromEntity(await repository.save(entity));
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === UNIQUE_VIOLATION
      ) {
        throw duplicateName(input.name);
      }
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
    await this.dataSource.getRepository(SessionTemplateEntity).delete({ id: template.id });
  }
}

function duplicateName(name: string): AppError {
  return new AppError('CONFLICT', `A template named "${name}" already exists`, {
    field: 'name',
    issue: 'is already taken',
  });
}

function fromEntity(entity: SessionTemplateEntity): SessionTemplate {
  return {
    id: entity.id,
    name: entity.name,
    description: entity.description,
    type: entity.type,
    modality: entity.modality,
    durationMinutes: entity.durationMinutes,
    privacyLevel: entity.privacyLevel,
    builtIn: false,
    createdAt: entity.createdAt,
  };
}
