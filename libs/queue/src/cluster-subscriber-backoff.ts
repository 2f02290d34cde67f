import type { Cluster } from 'ioredis';

/** The first reconnection after a subscriber's connection ends is at once, as ioredis does. */
const FIRST_DELAY_MS = 0;
/** Then 50, 100, 200 … ms, at most this much, while the connections keep failing. */
const MIN_DELAY_MS = 50;
export const MAX_SUBSCRIBER_DELAY_MS = 2_000;
/** A connection that lasted this long was not failing: the next end starts the backoff again. */
const HEALTHY_AFTER_MS = 10_000;

/** What ioredis keeps inside: ClusterSubscriber, with the handler it gives each connection's `end`. */
interface ClusterSubscriberInside {
  onSubscriberEnd: () => void;
}

/**
 * ioredis's cluster subscriber (pub/sub on a Redis Cluster) connects to a
 * node again the moment its connection ends, with no delay and no retries of
 * its own (redis/ioredis#2030, open, and the same in 6.0.0). With every node
 * away that is a loop: about 16,000 connections a second and a core's CPU in
 * each API and worker, and each turn leaves a listener and a timer on the
 * last connection's socket. This puts a backoff between the turns: the first
 * at once (one node lost, another takes over), then from 50 ms doubling to
 * MAX_SUBSCRIBER_DELAY_MS; a connection that lasted HEALTHY_AFTER_MS starts it
 * over. Messages published while no subscriber is connected are missed either
 * way (pub/sub keeps nothing); what listens here already copes with that.
 *
 * It replaces the handler before the cluster starts its subscriber (which
 * happens once it connects). Returns false, changing nothing, when ioredis no
 * longer has that handler (test/redis-cluster.e2e-spec.ts would then fail).
 */
export function backOffSubscriberReconnects(cluster: Cluster, now = () => Date.now()): boolean {
  const subscriber = (cluster as unknown as { subscriber?: Partial<ClusterSubscriberInside> })
    .subscriber;
  const reselect = subscriber?.onSubscriberEnd;
  if (!subscriber || typeof reselect !== 'function') return false;
  let failures = 0;
  let lastTurnAt = Number.NEGATIVE_INFINITY;
  let pending: NodeJS.Timeout | undefined;
  subscriber.onSubscriberEnd = () => {
    if (now() - lastTurnAt >= HEALTHY_AFTER_MS) failures = 0;
    const delay =
      failures === 0
        ? FIRST_DELAY_MS
        : Math.min(MIN_DELAY_MS * 2 ** (failures - 1), MAX_SUBSCRIBER_DELAY_MS);
    failures += 1;
    clearTimeout(pending);
    pending = setTimeout(() => {
      lastTurnAt = now();
      reselect();
    }, delay);
    // A cluster being closed must not wait for it (ioredis's own handler does nothing once stopped).
    pending.unref();
  };
  return true;
}
