import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, MoreThan, type Repository } from 'typeorm';
import { AppError, newKey } from '#common';
import { OrganizationEntity, type Plan, type Tier } from '#database';

export interface NewOrganization {
  name: string;
  plan?: Plan;
  tier?: Tier;
  /** Concurrent sessions per mode, when above the plan's; default: the plan's. */
  maxConcurrentSessions?: number | null;
}

@Injectable()
export class OrganizationsService {
  constructor(
    @InjectRepository(OrganizationEntity)
    private readonly organizations: Repository<OrganizationEntity>,
  ) {}

  async create(input: NewOrganization): Promise<OrganizationEntity> {
    const organization = this.build(input, false);
    await this.organizations.insert(organization);
    return organization;
  }

  async get(id: string): Promise<OrganizationEntity | null> {
    return this.organizations.findOneBy({ id });
  }

  /** Refuses (403) a caller outside the operator (bootstrap) organisation; `action` says what it wanted. */
  async requireOperator(organizationId: string, action: string): Promise<void> {
    const own = await this.get(organizationId);
    if (!own?.isBootstrap) {
      throw new AppError('FORBIDDEN', `Only the operator organisation can ${action}`, {
        issue: 'requires the operator organisation',
      });
    }
  }

  /**
   * A keyset page of every organisation, oldest first (ids are time-ordered),
   * with the counts a page-numbered list shows.
   */
  async page(
    afterId: string | null,
    perPage: number,
  ): Promise<{ rows: OrganizationEntity[]; total: number; before: number }> {
    const [rows, total, before] = await Promise.all([
      this.organizations.find({
        where: afterId === null ? {} : { id: MoreThan(afterId) },
        order: { id: 'ASC' },
        take: perPage + 1,
      }),
      this.organizations.count(),
      afterId === null
        ? Promise.resolve(0)
        : this.organizations.countBy({ id: LessThan(afterId) }).then((n) => n + 1),
    ]);
    return { rows, total, before };
  }

  /**
   * The operator organisation (enterprise plan, custom tier), created on first
   * start. A unique index allows one; API instances starting together agree on it.
   */
  async ensureBootstrap(): Promise<OrganizationEntity> {
    const candidate = this.build(
      { name: 'Bootstrap organisation', plan: 'enterprise', tier: 'custom' },
      true,
    );
    await this.organizations.createQueryBuilder().insert().values(candidate).orIgnore().execute();
    return this.organizations.findOneByOrFail({ isBootstrap: true });
  }

  private build(input: NewOrganization, isBootstrap: boolean): OrganizationEntity {
    const now = new Date();
    return this.organizations.create({
      id: newKey('organization').uuid,
      name: input.name,
      plan: input.plan ?? 'free',
      tier: input.tier ?? 'basic',
      maxConcurrentSessions: input.maxConcurrentSessions ?? null,
      isBootstrap,
      engineSeed: randomBytes(32).toString('hex'),
      createdAt: now,
      updatedAt: now,
    });
  }
}
