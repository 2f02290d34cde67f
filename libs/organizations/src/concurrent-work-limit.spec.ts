import { describe, expect, it } from 'vitest';
import { assertRunningWorkWithin, type RunningWork } from './concurrent-work-limit.js';
import type { OrganizationLimits } from './organization-limits.js';
import { refusal } from '#common/testing';

const limits: OrganizationLimits = {
  plan: 'free',
  requestsPerMinute: 60,
  requestsPerHour: null,
  requestsPerDay: null,
  concurrentSessions: 3,
};
const sessions = {
  running: ['initiated', 'in_progress'],
  noun: 'sessions',
  field: 'concurrent_sessions',
};

/** Running work as a repository would count it, recording what the check asked. */
function running(count: number, nextCompletion: Date | null = null) {
  const asked: { atMost: number[]; nextCompletion: number } = { atMost: [], nextCompletion: 0 };
  const work: RunningWork = {
    countLocked: (atMost) => {
      asked.atMost.push(atMost);
      return Promise.resolve(Math.min(count, atMost));
    },
    nextCompletion: () => {
      asked.nextCompletion += 1;
      return Promise.resolve(nextCompletion);
    },
  };
  return { work, asked };
}

describe('assertRunningWorkWithin', () => {
  it('counts nothing for an organisation without limits', async () => {
    const { work, asked } = running(100);
    await assertRunningWorkWithin(null, sessions, work);
    expect(asked).toEqual({ atMost: [], nextCompletion: 0 });
  });

  it('lets the work through up to the limit, counting one past it at most', async () => {
    const { work, asked } = running(3);
    await assertRunningWorkWithin(limits, sessions, work);
    expect(asked).toEqual({ atMost: [4], nextCompletion: 0 });
  });

  it('refuses one past the limit with 429 naming the field, the plan and the running states', async () => {
    const { work } = running(4, new Date(Date.now() + 9_500));
    const error = await refusal(assertRunningWorkWithin(limits, sessions, work));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toBe(
      'The free plan allows 3 concurrent sessions (initiated or in progress), and that many are running',
    );
    expect(error.details).toMatchObject({
      field: 'concurrent_sessions',
      issue: 'at most 3 sessions may be initiated or in progress at once',
      limit: 3,
      plan: 'free',
    });
    expect(error.headers).toEqual({ 'Retry-After': '10' });
  });

  it('asks a retry after at least a second when no running work says when it ends', async () => {
    for (const nextDone of [null, new Date(Date.now() - 60_000)]) {
      const { work } = running(10, nextDone);
      const error = await refusal(assertRunningWorkWithin(limits, sessions, work));
      expect(error.headers).toEqual({ 'Retry-After': '1' });
    }
  });
});
