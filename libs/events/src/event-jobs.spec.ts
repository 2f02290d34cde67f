import { Logger } from '@nestjs/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QUEUE } from '#queue';
import { EventJobs } from './event-jobs.js';
import { EventEntity } from './event.entity.js';

function event(type: string, data: Record<string, unknown>): EventEntity {
  return Object.assign(new EventEntity(), {
    id: '0193c0de-0000-7000-8000-000000000001',
    organizationId: '0193c0de-0000-7000-8000-0000000000aa',
    mode: 'live',
    type,
    data,
    requestId: null,
    createdAt: new Date(),
  });
}

function sessionRun(e: EventEntity) {
  if (typeof e.data.session_id !== 'string') throw new Error('names no session');
  return {
    queue: QUEUE.sessions,
    name: 'run' as const,
    data: {
      sessionId: e.data.session_id,
      organizationId: e.organizationId,
      mode: e.mode,
      requestId: null,
    },
    options: { jobId: e.data.session_id },
  };
}

describe('EventJobs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives the jobs of the events whose type starts work, in event order, and none for the rest', () => {
    const jobs = new EventJobs();
    jobs.on('session.created', sessionRun);
    const queued = jobs.jobsOf([
      event('session.created', { session_id: 'sess_a' }),
      event('session.progress_updated', { session_id: 'sess_a' }),
      event('session.created', { session_id: 'sess_b' }),
    ]);
    expect(queued.map((job) => [job.queue, job.name, job.options.jobId])).toEqual([
      ['sessions', 'run', 'sess_a'],
      ['sessions', 'run', 'sess_b'],
    ]);
  });

  it('skips, and logs, an event whose job cannot be made, so the events after it still start theirs', () => {
    const logged = vi.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const jobs = new EventJobs();
    jobs.on('session.created', sessionRun);
    const queued = jobs.jobsOf([
      event('session.created', {}),
      event('session.created', { session_id: 'sess_c' }),
    ]);
    expect(queued.map((job) => job.options.jobId)).toEqual(['sess_c']);
    expect(logged).toHaveBeenCalledOnce();
    expect(logged.mock.calls[0]![0]).toMatchObject({ eventType: 'session.created' });
  });
});
