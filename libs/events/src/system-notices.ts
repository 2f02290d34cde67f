import { Injectable } from '@nestjs/common';
import { MODES, newKey } from '#common';
import type { Transaction } from '#database';
import type { SystemNoticeData } from './catalogue.js';
import { EventLog } from './event-log.js';

export const SYSTEM_NOTICE_TYPES = [
  'system.maintenance_scheduled',
  'system.service_disruption',
  'system.security_alert',
] as const;
export type SystemNoticeType = (typeof SYSTEM_NOTICE_TYPES)[number];

export interface SystemNotice {
  type: SystemNoticeType;
  title: string;
  message: string;
  severity: SystemNoticeData['severity'];
  startsAt: Date | null;
  endsAt: Date | null;
  /** Public id of the one organisation to tell; every organisation when absent. */
  organizationId?: string | undefined;
}

/**
 * Announcements by the operators: one event per organisation and mode, all in
 * the caller's transaction, so every subscriber learns of it through the
 * usual outbox. Which organisations is the caller's to say (libs/organizations'
 * OperatorNotices): the table of organisations belongs to a lib above this one.
 */
@Injectable()
export class SystemNotices {
  constructor(private readonly events: EventLog) {}

  async announce(
    tx: Transaction,
    organizationIds: readonly string[],
    notice: SystemNotice,
    requestId: string | null,
  ): Promise<{ noticeId: string; organizations: number; events: number }> {
    const noticeId = newKey('systemNotice').id;
    const data: SystemNoticeData = {
      notice_id: noticeId,
      title: notice.title,
      message: notice.message,
      severity: notice.severity,
      starts_at: notice.startsAt?.toISOString() ?? null,
      ends_at: notice.endsAt?.toISOString() ?? null,
      // A notice is its own resource and is announced once.
      sequence: 1,
    };
    for (const organizationId of organizationIds) {
      for (const mode of MODES) {
        await this.events.append(tx, { organizationId, mode }, notice.type, data, requestId);
      }
    }
    return {
      noticeId,
      organizations: organizationIds.length,
      events: organizationIds.length * MODES.length,
    };
  }
}
