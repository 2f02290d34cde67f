import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export const TIERS = ['basic', 'professional', 'enterprise', 'custom'] as const;
export type Tier = (typeof TIERS)[number];

@Entity({ name: 'organizations' })
@Index('organizations_one_bootstrap_key', ['isBootstrap'], { unique: true, where: 'is_bootstrap' })
export class OrganizationEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', default: 'free' })
  plan!: Plan;

  @Column({ type: 'text', default: 'basic' })
  tier!: Tier;

  /** Concurrent sessions allowed per mode when above the plan's (enterprise "500 and more"); null: the plan's. */
  @Column({ name: 'max_concurrent_sessions', type: 'integer', nullable: true })
  maxConcurrentSessions!: number | null;

  /** Agreed requests per minute (enterprise plan "6000 and more"); null: the plan's. */
  @Column({ name: 'requests_per_minute', type: 'integer', nullable: true })
  requestsPerMinute!: number | null;

  /** Agreed hourly quota (custom tier); null: the tier's (custom: unlimited). */
  @Column({ name: 'requests_per_hour', type: 'integer', nullable: true })
  requestsPerHour!: number | null;

  /** Agreed daily quota (custom tier); null: the tier's (custom: unlimited). */
  @Column({ name: 'requests_per_day', type: 'integer', nullable: true })
  requestsPerDay!: number | null;

  /** The operator organisation created from BOOTSTRAP_* settings; at most one. */
  @Column({ name: 'is_bootstrap', type: 'boolean', default: false })
  isBootstrap!: boolean;

  /** Per-organisation seed of the simulated engine, so sandbox output is stable per org. */
  @Column({ name: 'engine_seed', type: 'text' })
  engineSeed!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
