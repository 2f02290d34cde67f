import { Injectable } from '@nestjs/common';
import { AppSettings } from '#config';
import { QUEUE, type QueueName } from './queues.js';
import { queuePrefix, usesRedisCluster } from './redis-connections.js';
import { RedisService } from './redis.service.js';

/**
 * Notices that Redis lost its data: restarted without persistence, flushed,
 * or a cluster node back empty. Workers keep a marker key that nothing
 * deletes beside the queues' keys: one on a single Redis, where all data goes
 * at once; one in each queue's hash slot on a cluster, where a node may lose
 * its slots alone. When a marker is gone, so is everything stored with it:
 * jobs and job schedulers.
 */
@Injectable()
export class RedisDataLoss {
  constructor(
    private readonly redis: RedisService,
    private readonly settings: AppSettings,
  ) {}

  /**
   * Puts back every marker that is gone, and says whether one was: Redis lost
   * its data since a worker last looked (or no worker has used this Redis
   * yet). A marker is set only if absent, in one command, so of several
   * workers that look at once one is told (on a cluster, where each slot has
   * its own, two may share the news of a loss spanning several slots).
   */
  async markersWereGone(): Promise<boolean> {
    const now = new Date().toISOString();
    const replies = await Promise.all(
      this.markerKeys().map((key) => this.redis.client.set(key, now, 'NX')),
    );
    return replies.some((reply) => reply === 'OK');
  }

  /**
   * Beside BullMQ's keys of a queue (`<prefix>:<queue>:…`), under a name
   * BullMQ never uses: it refuses a job id such as `recovery:marker`.
   */
  markerKeys(): string[] {
    const queues: QueueName[] = usesRedisCluster(this.settings)
      ? Object.values(QUEUE)
      : [QUEUE.maintenance];
    return queues.map((queue) => `${queuePrefix(this.settings, queue)}:${queue}:recovery:marker`);
  }
}
