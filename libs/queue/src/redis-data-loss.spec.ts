import { describe, expect, it } from 'vitest';
import type { AppSettings } from '#config';
import { RedisDataLoss } from './redis-data-loss.js';
import type { RedisService } from './redis.service.js';

/** A Redis that keeps string keys and answers SET … NX as Redis does. */
function fakeRedis() {
  const keys = new Map<string, string>();
  const client = {
    async set(key: string, value: string, mode: 'NX') {
      expect(mode).toBe('NX');
      if (keys.has(key)) return null;
      keys.set(key, value);
      return 'OK';
    },
  };
  return { keys, service: { client } as unknown as RedisService };
}

const redisOnly = { redisUrl: 'redis://127.0.0.1:6379', redisPrefix: 'sas' };
const single = { ...redisOnly, redisClusterNodes: [] } as unknown as AppSettings;
const cluster = {
  ...redisOnly,
  redisClusterNodes: [{ host: '10.0.0.5', port: 7000 }],
} as unknown as AppSettings;

describe('RedisDataLoss', () => {
  it('keeps one marker on a single Redis, beside the maintenance queue', () => {
    const { service } = fakeRedis();
    expect(new RedisDataLoss(service, single).markerKeys()).toEqual([
      'sas:maintenance:recovery:marker',
    ]);
  });

  it("keeps one in each queue's hash slot on a cluster", () => {
    const { service } = fakeRedis();
    expect(new RedisDataLoss(service, cluster).markerKeys()).toEqual([
      '{sas:events}:events:recovery:marker',
      '{sas:sessions}:sessions:recovery:marker',
      '{sas:analyses}:analyses:recovery:marker',
      '{sas:reports}:reports:recovery:marker',
      '{sas:maintenance}:maintenance:recovery:marker',
      '{sas:work}:work:recovery:marker',
    ]);
  });

  it('tells the first to look after the data went, and only it', async () => {
    const { keys, service } = fakeRedis();
    const [first, second] = [
      new RedisDataLoss(service, single),
      new RedisDataLoss(service, single),
    ];
    expect(await first.markersWereGone()).toBe(true);
    expect(await second.markersWereGone()).toBe(false);
    expect(await first.markersWereGone()).toBe(false);
    keys.clear();
    expect(await second.markersWereGone()).toBe(true);
    expect(await first.markersWereGone()).toBe(false);
  });

  it('notices a cluster node that lost only its own slots', async () => {
    const { keys, service } = fakeRedis();
    const detector = new RedisDataLoss(service, cluster);
    await detector.markersWereGone();
    keys.delete('{sas:sessions}:sessions:recovery:marker');
    expect(await detector.markersWereGone()).toBe(true);
    expect(keys.size).toBe(6);
  });
});
