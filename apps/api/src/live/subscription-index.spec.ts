import { describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, SubscriptionIndex } from './subscription-index.js';

describe('subscription index', () => {
  it('routes by organisation and mode, to session and * subscribers, once each', () => {
    const index = new SubscriptionIndex<string>();
    index.register('a', 'org1/live');
    index.register('b', 'org1/live');
    index.register('c', 'org1/test');
    index.add('a', 'sess_1');
    index.add('a', '*');
    index.add('b', 'sess_2');
    index.add('c', '*');
    expect([...index.recipients('org1/live', 'sess_1')]).toEqual(['a']);
    expect([...index.recipients('org1/live', 'sess_2')].sort()).toEqual(['a', 'b']);
    expect([...index.recipients('org1/test', 'sess_1')]).toEqual(['c']);
    expect([...index.recipients('org2/live', 'sess_1')]).toEqual([]);
  });

  it('caps subscriptions per connection and forgets everything of a closed connection', () => {
    const index = new SubscriptionIndex<string>();
    index.register('a', 'org1/live');
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) {
      expect(index.add('a', `sess_${i}`)).toBe('added');
    }
    expect(index.add('a', 'sess_0')).toBe('present');
    expect(index.add('a', '*')).toBe('limit');
    expect(index.remove('a', 'sess_0')).toBe(true);
    expect(index.add('a', '*')).toBe('added');
    expect(index.subscriptionCount).toBe(MAX_SUBSCRIPTIONS_PER_CONNECTION);

    index.unregister('a');
    expect(index.connectionCount).toBe(0);
    expect(index.subscriptionCount).toBe(0);
    expect(index.recipients('org1/live', 'sess_1').size).toBe(0);
    expect(index.add('a', 'sess_1')).toBe('closed');
  });
});
