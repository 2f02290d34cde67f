import { Injectable } from '@nestjs/common';
import { AppError, parsePublicId, type Tenant } from '#common';
import { Sql } from '#database';
import { SystemNotices, type SystemNotice } from '#events';
import { OrganizationsRepository } from './organizations.repository.js';
import { OrganizationsService } from './organizations.service.js';

/**
 * System notices as the operator announces them: only the operator, in live
 * mode, may (else FORBIDDEN), and a notice's time window must not end before
 * it starts. SystemNotices then tells every organisation, or the one named,
 * in the transaction that read which organisations there are.
 */
@Injectable()
export class OperatorNotices {
  constructor(
    private readonly sql: Sql,
    private readonly organizations: OrganizationsService,
    private readonly repository: OrganizationsRepository,
    private readonly notices: SystemNotices,
  ) {}

  async announce(
    operator: Tenant,
    notice: SystemNotice,
    requestId: string | null,
  ): Promise<{ noticeId: string; organizations: number; events: number }> {
    await this.organizations.requireOperator(operator, 'announce system notices');
    if (notice.startsAt && notice.endsAt && notice.endsAt < notice.startsAt) {
      throw AppError.invalid('ends_at', 'must not be before starts_at');
    }
    const target =
      notice.organizationId === undefined
        ? null
        : parsePublicId('organization', notice.organizationId);
    if (notice.organizationId !== undefined && target === null) {
      throw AppError.notFound('organization', notice.organizationId);
    }
    return this.sql.transaction(async (tx) => {
      const organizationIds = await this.repository.idsAcrossTenants(target, tx);
      if (target !== null && organizationIds.length === 0) {
        throw AppError.notFound('organization', notice.organizationId!);
      }
      return this.notices.announce(tx, organizationIds, notice, requestId);
    });
  }
}
