import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Settings } from '#config';
import { backOffSubscriberReconnects } from './cluster-subscriber-backoff.js';

/** A connection to the deployment's Redis: one server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

type RedisSettings = Pick<Settings, 'redisUrl' | 'redisClusterNodes' | 'redisPrefix'>;

export function usesRedisCluster(settings: RedisSettings): boolean {
  return settings.redisClusterNodes.length > 0;
}

/**
 * A new connection with the given options: to REDIS_URL, or, when
 * REDIS_CLUSTER_NODES is set, to that cluster (ioredis discovers the other
 * nodes and follows MOVED/ASK redirections). The cluster's nodes take
 * REDIS_URL's user, password and TLS (`rediss:`), nothing else: a cluster has
 * only database 0.
 */
export function createRedisClient(settings: RedisSettings, options: RedisOptions): RedisClient {
  if (!usesRedisCluster(settings)) return new Redis(settings.redisUrl, options);
  const { enableAutoPipelining, ...nodeOptions } = options;
  const cluster = new Cluster(settings.redisClusterNodes, {
    // Auto-pipelining is a cluster option: commands are grouped per node.
    enableAutoPipelining,
    redisOptions: { ...credentialsOf(settings.redisUrl), ...nodeOptions },
  });
  backOffSubscriberReconnects(cluster);
  if (typeof options.maxRetriesPerRequest === 'number') {
    // maxRetriesPerRequest bounds a command's wait on one node's reconnection, but a
    // cluster keeps commands it cannot place (every node away) in a queue of its own,
    // without limit. Once first connected it keeps none: commands fail at once while
    // the cluster is away, as they do on a single Redis after the retries.
    cluster.once('ready', () => (cluster.options.enableOfflineQueue = false));
  }
  return cluster;
}

/**
 * BullMQ's key prefix for a queue. A queue's Lua scripts touch several of its
 * keys at once, which a cluster allows only within one hash slot: there the
 * prefix is a hash tag, one per queue so the queues spread over the nodes
 * (none of BullMQ's operations used here spans two queues). A single Redis
 * keeps the plain prefix, so queued jobs survive a deploy of this change.
 */
export function queuePrefix(settings: RedisSettings, queue: string): string {
  return usesRedisCluster(settings) ? `{${settings.redisPrefix}:${queue}}` : settings.redisPrefix;
}

function credentialsOf(redisUrl: string): RedisOptions {
  const url = new URL(redisUrl);
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
