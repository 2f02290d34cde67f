import { Column } from 'typeorm';
import type { Mode } from '#common';

/** The organisation and mode every tenant resource belongs to (docs/architecture.md, "Tenancy"). */
export abstract class TenantOwned {
  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @Column({ type: 'text' })
  mode!: Mode;
}
