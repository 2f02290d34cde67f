import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newKey } from '#common';
import { OrganizationEntity, type Plan, type Tier } from '#database';

export interface NewOrganization {
  name: string;
  plan?: Plan;
  tier?: Tier;
}

@Injectable()
export class OrganizationsService {
  constructor(
    @InjectRepository(OrganizationEntity)
    private readonly organizations: Repository<OrganizationEntity>,
  ) {}

  async create(input: NewOrganization, isBootstrap = false): Promise<OrganizationEntity> {
    const organization = this.organizations.create({
      id: newKey('organization').uuid,
      name: input.name,
      plan: input.plan ?? 'free',
      tier: input.tier ?? 'basic',
      isBootstrap,
      engineSeed: randomBytes(32).toString('hex'),
    });
    return this.organizations.save(organization);
  }

  async get(id: string): Promise<OrganizationEntity | null> {
    return this.organizations.findOneBy({ id });
  }

  /** The operator organisation, created on first start (enterprise plan, custom tier). */
  async ensureBootstrap(): Promise<OrganizationEntity> {
    const existing = await this.organizations.findOneBy({ isBootstrap: true });
    if (existing) return existing;
    return this.create(
      { name: 'Bootstrap organisation', plan: 'enterprise', tier: 'custom' },
      true,
    );
  }
}
