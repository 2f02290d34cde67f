import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, RESERVED_EVENT_TYPES, RESERVED_EVENTS_NOTE } from './catalogue.js';

describe('the event catalogue', () => {
  it('marks the payment events reserved: subscribable, never sent while there is no billing', () => {
    expect([...RESERVED_EVENT_TYPES].sort()).toEqual([
      'account.payment_failed',
      'account.payment_succeeded',
    ]);
    // Still in the catalogue, so subscriptions to them are accepted.
    for (const type of RESERVED_EVENT_TYPES) expect(EVENT_TYPES).toContain(type);
    for (const type of RESERVED_EVENT_TYPES) expect(RESERVED_EVENTS_NOTE).toContain(`\`${type}\``);
    expect(RESERVED_EVENTS_NOTE).toMatch(
      /^Reserved: .* never sent, because the service has no billing/,
    );
  });
});
