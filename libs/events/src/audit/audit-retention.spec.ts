import { describe, expect, it, vi } from 'vitest';
import type { AppSettings } from '#config';
import type { PeriodicTasks } from '#queue';
import type { AuditEventsRepository } from './audit-events.repository.js';
import { AuditRetention } from './audit-retention.js';

function retention(batches: number[]) {
  const sweep = vi.fn((_days: number, _limit: number) => Promise.resolve(batches.shift() ?? 0));
  const register = vi.fn();
  const subject = new AuditRetention(
    { sweepAcrossTenants: sweep } as unknown as AuditEventsRepository,
    { register } as unknown as PeriodicTasks,
    { auditRetentionDays: 90 } as AppSettings,
  );
  return { subject, sweep, register };
}

describe('AuditRetention', () => {
  it('sweeps in batches until a batch comes back short, with the configured days', async () => {
    const { subject, sweep } = retention([5000, 5000, 12]);
    expect(await subject.sweep()).toBe(10_012);
    expect(sweep.mock.calls).toEqual([
      [90, 5000],
      [90, 5000],
      [90, 5000],
    ]);
  });

  it('registers an hourly periodic task that reports what it deleted', async () => {
    const { subject, register } = retention([3]);
    subject.onModuleInit();
    const task = register.mock.calls[0]![0];
    expect(task).toMatchObject({ name: 'audit.retention', everyMs: 3_600_000 });
    expect(await task.run()).toEqual({ deleted: 3 });
  });
});
