import type { Cluster } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backOffSubscriberReconnects,
  MAX_SUBSCRIBER_DELAY_MS,
} from './cluster-subscriber-backoff.js';

/** A stand-in for ioredis's Cluster holding a ClusterSubscriber whose reselections are recorded. */
function fakeCluster() {
  const reselections: number[] = [];
  const subscriber = { onSubscriberEnd: () => void reselections.push(Date.now()) };
  return { cluster: { subscriber } as unknown as Cluster, subscriber, reselections };
}

describe('backOffSubscriberReconnects', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('reselects at once after a healthy connection, then backs off while each one fails', async () => {
    const { cluster, subscriber, reselections } = fakeCluster();
    expect(backOffSubscriberReconnects(cluster)).toBe(true);
    // Each new connection fails as soon as it is made: its end comes right after the reselection.
    for (let turn = 0; turn < 9; turn++) {
      subscriber.onSubscriberEnd();
      await vi.runOnlyPendingTimersAsync();
    }
    const gaps = reselections.slice(1).map((at, i) => at - reselections[i]!);
    expect(reselections[0]).toBe(0);
    expect(gaps).toEqual([
      50,
      100,
      200,
      400,
      800,
      1600,
      MAX_SUBSCRIBER_DELAY_MS,
      MAX_SUBSCRIBER_DELAY_MS,
    ]);
  });

  it('starts over once a connection has lasted', async () => {
    const { cluster, subscriber, reselections } = fakeCluster();
    backOffSubscriberReconnects(cluster);
    for (let turn = 0; turn < 4; turn++) {
      subscriber.onSubscriberEnd();
      await vi.runOnlyPendingTimersAsync();
    }
    const lastTurn = reselections.at(-1)!;
    await vi.advanceTimersByTimeAsync(60_000);
    subscriber.onSubscriberEnd();
    await vi.runOnlyPendingTimersAsync();
    expect(reselections.at(-1)).toBe(lastTurn + 60_000);
  });

  it('runs one reselection for ends that come while one waits', async () => {
    const { cluster, subscriber, reselections } = fakeCluster();
    backOffSubscriberReconnects(cluster);
    subscriber.onSubscriberEnd();
    await vi.runOnlyPendingTimersAsync();
    subscriber.onSubscriberEnd();
    subscriber.onSubscriberEnd();
    await vi.runOnlyPendingTimersAsync();
    expect(reselections).toHaveLength(2);
  });

  it('changes nothing when ioredis no longer has the handler', () => {
    expect(backOffSubscriberReconnects({ subscriber: {} } as unknown as Cluster)).toBe(false);
    expect(backOffSubscriberReconnects({} as unknown as Cluster)).toBe(false);
  });
});
