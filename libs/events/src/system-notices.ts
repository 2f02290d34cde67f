import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError, MODES, newKey, parsePublicId } from '#common';
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
 * one transaction, so every subscriber learns of it through the usual outbox.
 */
@Injectable()
export class SystemNotices {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly events: EventLog,
  ) {}

  async announce(
    notice: SystemNotice,
    requestId: string | null,
  ): Promise<{ noticeId: string; organizations: number; events: number }> {
    const target =
      notice.organizationId === undefined
        ? null
        : parsePublicId('organization', notice.organizationId);
    if (notice.organizationId !== undefined && target === null) {
      throw AppError.notFound('organization', notice.organizationId);
    }
    const noticeId = newKey('systemNotice').id;
    return this.dataSource.transaction(async (manager) => {
      const organizations: { id: string }[] = await manager.query(
        `SELECT id FROM organizations WHERE $1::uuid IS NULL OR id = $1`,
        [target],
      );
      if (target !== null && organizations.length === 0) {
        throw AppError.notFound('organization', notice.organizationId!);
      }
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
      for (const { id } of organizations) {
        for (const mode of MODES) {
          await this.events.append(
            manager,
            { organizationId: id, mode },
            notice.type,
            data,
            requestId,
          );
        }
      }
      return {
        noticeId,
        organizations: organizations.length,
        events: organizations.length * MODES.length,
      };
    });
  }
}
