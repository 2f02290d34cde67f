import { RateLimitError, type Queue } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { OUTAGE_PAUSE_MS, pauseDuringOutage } from './dependency-outage.js';

function fakeQueue(rateLimit = vi.fn(async () => undefined)) {
  return { queue: { rateLimit } as unknown as Queue, rateLimit };
}

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('pauseDuringOutage', () => {
  it('runs the work and leaves the queue alone when it succeeds', async () => {
    const { queue, rateLimit } = fakeQueue();
    const work = vi.fn(async () => undefined);
    await pauseDuringOutage(queue, work);
    expect(work).toHaveBeenCalledOnce();
    expect(rateLimit).not.toHaveBeenCalled();
  });

  it('pauses the queue and puts the job back, unspent, when PostgreSQL cannot be reached', async () => {
    const { queue, rateLimit } = fakeQueue();
    await expect(
      pauseDuringOutage(queue, () =>
        Promise.reject(new Error('Connection terminated unexpectedly')),
      ),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(rateLimit).toHaveBeenCalledWith(OUTAGE_PAUSE_MS);
  });

  it('lets any other failure count as one', async () => {
    const { queue, rateLimit } = fakeQueue();
    const failure = new Error('engine broke');
    await expect(pauseDuringOutage(queue, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(rateLimit).not.toHaveBeenCalled();
  });

  it('fails the attempt with the outage when Redis cannot take the pause either', async () => {
    const { queue } = fakeQueue(vi.fn(() => Promise.reject(new Error('Redis is away'))));
    const outage = refused();
    await expect(pauseDuringOutage(queue, () => Promise.reject(outage))).rejects.toBe(outage);
  });
});
