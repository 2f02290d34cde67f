import { Injectable } from '@nestjs/common';
import { AppError, type Tenant } from '#common';
import { SystemNotices, type SystemNotice } from '#events';
import { OrganizationsService } from './organizations.service.js';

/**
 * System notices as the operator announces them: only the operator, in live
 * mode, may (else FORBIDDEN), and a notice's time window must not end before
 * it starts. SystemNotices then tells every organisation, or the one named.
 */
@Injectable()
export class OperatorNotices {
  constructor(
    private readonly organizations: OrganizationsService,
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
    return this.notices.announce(notice, requestId);
  }
}
