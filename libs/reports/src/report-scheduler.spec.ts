import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { newKey } from '#common';
import { EventEntity, EventJobs } from '#events';
import { ReportScheduler } from './report-scheduler.js';

const TENANT = { organizationId: '0193c0de-0000-7000-8000-0000000000aa', mode: 'test' } as const;

function requested(data: Record<string, unknown>): EventEntity {
  return Object.assign(new EventEntity(), {
    ...TENANT,
    id: '0193c0de-0000-7000-8000-000000000001',
    type: 'internal.report_requested',
    data,
    requestId: 'req_1',
    createdAt: new Date(),
  });
}

function scheduled(): EventJobs {
  const eventJobs = new EventJobs();
  new ReportScheduler(eventJobs).onModuleInit();
  return eventJobs;
}

describe('ReportScheduler', () => {
  afterEach(() => vi.restoreAllMocks());

  it('queues the build of the report asked for, under its public id, so a second relay adds nothing', () => {
    const { uuid, id } = newKey('report');
    expect(scheduled().jobsOf([requested({ report_id: id })])).toEqual([
      {
        queue: 'reports',
        name: 'build',
        data: { reportId: uuid, ...TENANT, requestId: 'req_1' },
        options: { jobId: id },
      },
    ]);
  });

  it('queues nothing, and logs, for an event that names no report', () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(scheduled().jobsOf([requested({ report_id: 'sess_nope' })])).toEqual([]);
    expect(logged).toHaveBeenCalledOnce();
  });
});
