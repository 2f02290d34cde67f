import type { Tenant } from '#common';
import { ALL_SESSIONS } from './session-update-messages.js';

/** Most subscriptions one connection may hold (`*` counts as one). */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export type SubscribeOutcome = 'added' | 'present' | 'limit' | 'closed';

interface TenantSubscribers<C> {
  /** Connections subscribed to `*`. */
  everything: Set<C>;
  bySession: Map<string, Set<C>>;
}

interface Registration {
  tenant: string;
  subscriptions: Set<string>;
}

/** One organisation and mode: connections only ever see updates of their own. */
export function tenantKey(tenant: Tenant): string {
  return `${tenant.organizationId}/${tenant.mode}`;
}

/**
 * Which local connections want which session's updates, keyed by organisation
 * and mode, so routing one event costs a look-up plus its recipients (never a
 * pass over every socket). Empty entries are dropped, so closed connections
 * leave nothing behind.
 */
export class SubscriptionIndex<C> {
  private readonly tenants = new Map<string, TenantSubscribers<C>>();
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
    for (const sessionId of [...registration.subscriptions]) this.remove(connection, sessionId);
    this.registrations.delete(connection);
  }

  has(connection: C, sessionId: string): boolean {
    return this.registrations.get(connection)?.subscriptions.has(sessionId) ?? false;
  }

  /** `closed` when the connection is no longer registered (it went away while a look-up ran). */
  add(connection: C, sessionId: string): SubscribeOutcome {
    const registration = this.registrations.get(connection);
    if (!registration) return 'closed';
    if (registration.subscriptions.has(sessionId)) return 'present';
    if (registration.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) return 'limit';
    registration.subscriptions.add(sessionId);
    let subscribers = this.tenants.get(registration.tenant);
    if (!subscribers) {
      subscribers = { everything: new Set(), bySession: new Map() };
      this.tenants.set(registration.tenant, subscribers);
    }
    if (sessionId === ALL_SESSIONS) {
      subscribers.everything.add(connection);
    } else {
      let connections = subscribers.bySession.get(sessionId);
      if (!connections) {
        connections = new Set();
        subscribers.bySession.set(sessionId, connections);
      }
      connections.add(connection);
    }
    return 'added';
  }

  /** Whether the connection held that subscription. */
  remove(connection: C, sessionId: string): boolean {
    const registration = this.registrations.get(connection);
    if (!registration?.subscriptions.delete(sessionId)) return false;
    const subscribers = this.tenants.get(registration.tenant)!;
    if (sessionId === ALL_SESSIONS) {
      subscribers.everything.delete(connection);
    } else {
      const connections = subscribers.bySession.get(sessionId)!;
      connections.delete(connection);
      if (connections.size === 0) subscribers.bySession.delete(sessionId);
    }
    if (subscribers.everything.size === 0 && subscribers.bySession.size === 0) {
      this.tenants.delete(registration.tenant);
    }
    return true;
  }

  /** The connections of that organisation and mode subscribed to the session or to `*`. */
  recipients(tenant: string, sessionId: string): ReadonlySet<C> {
    const subscribers = this.tenants.get(tenant);
    if (!subscribers) return new Set();
    const specific = subscribers.bySession.get(sessionId);
    if (!specific) return subscribers.everything;
    if (subscribers.everything.size === 0) return specific;
    return new Set([...subscribers.everything, ...specific]);
  }
}
