import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisClient, queuePrefix } from './redis-connections.js';

const single = { redisUrl: 'redis://127.0.0.1:6379', redisPrefix: 'sas', redisClusterNodes: [] };
const cluster = {
  redisUrl: 'rediss://ops:p%40ss@ignored.example:1/3',
  redisPrefix: 'sas',
  redisClusterNodes: [
    { host: '10.0.0.5', port: 7000 },
    { host: '10.0.0.6', port: 7001 },
  ],
};

describe('Redis connections', () => {
  it('keep the plain BullMQ prefix on one Redis and hash-tag it per queue on a cluster', () => {
    expect(queuePrefix(single, 'sessions')).toBe('sas');
    expect(queuePrefix(cluster, 'sessions')).toBe('{sas:sessions}');
    expect(queuePrefix(cluster, 'events')).not.toBe(queuePrefix(cluster, 'sessions'));
  });

  it('connect to REDIS_URL, or to the nodes with its user, password and TLS only', () => {
    const one = createRedisClient(
      { ...single, redisUrl: 'redis://127.0.0.1:1' },
      {
        lazyConnect: true,
        maxRetriesPerRequest: 2,
      },
    );
    expect(one).toBeInstanceOf(Redis);
    one.disconnect();

    const many = createRedisClient(cluster, {
      maxRetriesPerRequest: 2,
      enableAutoPipelining: true,
    }) as Cluster;
    many.on('error', () => undefined);
    many.disconnect();
    expect(many).toBeInstanceOf(Cluster);
    expect(many.options.enableAutoPipelining).toBe(true);
    expect(many.options.redisOptions).toEqual({
      username: 'ops',
      password: 'p@ss',
      tls: {},
      maxRetriesPerRequest: 2,
    });
  });
});
