import type { Tenant } from '#common';
import { ALL, type UpdateKind } from './session-update-messages.js';

/** Most subscriptions one connection may hold, sessions and analyses together (`*` counts as one). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export type SubscribeOutcome = 'added' | 'present' | 'limit' | 'closed';

interface Registration {
  tenant: string;
  /** Topic keys (`topicKey`). */
  subscriptions: Set<string>;
}

/** One organisation and mode: connections only ever see updates of their own. */
export function tenantKey(tenant: Tenant): string {
  return `${tenant.organizationId}/${tenant.mode}`;
}

/**
 * A subscription within a tenant: `session:sess_…`, `session:*`,
 * `analysis:anal_…`, `analysis:*`. The kind is part of the key, so a `*` of
 * one kind can never match an update of the other.
 */
function topicKey(kind: UpdateKind, id: string): string {
  return `${kind}:${id}`;
}

/**
 * Which local connections want which session's or analysis's updates, keyed
 * by organisation and mode, so routing one event costs two look-ups (the
 * resource and its kind's `*`) plus its recipients — never a pass over every
 * socket. Empty entries are dropped, so closed connections leave nothing behind.
 */
export class SubscriptionIndex<C> {
  /** Tenant → topic key → subscribed connections. */
  private readonly tenants = new Map<string, Map<string, Set<C>>>();
  private readonly registrations = new Map<C, Registration>();

  get connectionCount(): number {
    return this.registrations.size;
  }

  get subscriptionCount(): number {
    let count = 0;
    for (const registration of this.registrations.values()) {
      count += registration.subscriptions.size;
    }
    return count;
  }

  connections(): IterableIterator<C> {
    return this.registrations.keys();
  }

  register(connection: C, tenant: string): void {
    if (!this.registrations.has(connection)) {
      this.registrations.set(connection, { tenant, subscriptions: new Set() });
    }
  }

  /** Forgets the connection and every subscription it held. */
  unregister(connection: C): void {
    const registration = this.registrations.get(connection);
    if (!registration) return;
    for (const key of registration.subscriptions) this.detach(connection, registration.tenant, key);
    this.registrations.delete(connection);
  }

  has(connection: C, kind: UpdateKind, id: string): boolean {
    return this.registrations.get(connection)?.subscriptions.has(topicKey(kind, id)) ?? false;
  }

  /** `closed` when the connection is no longer registered (it went away while a look-up ran). */
  add(connection: C, kind: UpdateKind, id: string): SubscribeOutcome {
    const registration = this.registrations.get(connection);
    if (!registration) return 'closed';
    const key = topicKey(kind, id);
    if (registration.subscriptions.has(key)) return 'present';
    if (registration.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) return 'limit';
    registration.subscriptions.add(key);
    let topics = this.tenants.get(registration.tenant);
    if (!topics) {
      topics = new Map();
      this.tenants.set(registration.tenant, topics);
    }
    let connections = topics.get(key);
    if (!connections) {
      connections = new Set();
      topics.set(key, connections);
    }
    connections.add(connection);
    return 'added';
  }

  /** Whether the connection held that subscription. */
  remove(connection: C, kind: UpdateKind, id: string): boolean {
    const registration = this.registrations.get(connection);
    const key = topicKey(kind, id);
    if (!registration?.subscriptions.delete(key)) return false;
    this.detach(connection, registration.tenant, key);
    return true;
  }

  /** The connections of that organisation and mode subscribed to the resource or to its kind's `*`. */
  recipients(tenant: string, kind: UpdateKind, id: string): ReadonlySet<C> {
    const topics = this.tenants.get(tenant);
    if (!topics) return new Set();
    const everything = topics.get(topicKey(kind, ALL));
    const specific = topics.get(topicKey(kind, id));
    if (!specific) return everything ?? new Set();
    if (!everything) return specific;
    return new Set([...everything, ...specific]);
  }

  private detach(connection: C, tenant: string, key: string): void {
    const topics = this.tenants.get(tenant)!;
    const connections = topics.get(key)!;
    connections.delete(connection);
    if (connections.size === 0) topics.delete(key);
    if (topics.size === 0) this.tenants.delete(tenant);
  }
}
