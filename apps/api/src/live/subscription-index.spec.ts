import { describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_CONNECTION, SubscriptionIndex } from './subscription-index.js';

describe('subscription index', () => {
  it('routes by organisation and mode, to session and * subscribers, once each', () => {
    const index = new SubscriptionIndex<string>();
    index.register('a', 'org1/live');
    index.register('b', 'org1/live');
    index.register('c', 'org1/test');
    index.add('a', 'session', 'sess_1');
    index.add('a', 'session', '*');
    index.add('b', 'session', 'sess_2');
    index.add('c', 'session', '*');
    expect([...index.recipients('org1/live', 'session', 'sess_1')]).toEqual(['a']);
    expect([...index.recipients('org1/live', 'session', 'sess_2')].sort()).toEqual(['a', 'b']);
    expect([...index.recipients('org1/test', 'session', 'sess_1')]).toEqual(['c']);
    expect([...index.recipients('org2/live', 'session', 'sess_1')]).toEqual([]);
  });

  it('routes by kind: a * of sessions never receives analyses, nor the other way round', () => {
    const index = new SubscriptionIndex<string>();
    index.register('sessions', 'org1/live');
    index.register('analyses', 'org1/live');
    index.register('one', 'org1/live');
    index.register('stranger', 'org2/live');
    index.add('sessions', 'session', '*');
    index.add('analyses', 'analysis', '*');
    index.add('one', 'analysis', 'anal_1');
    index.add('stranger', 'analysis', '*');
    expect([...index.recipients('org1/live', 'analysis', 'anal_1')].sort()).toEqual([
      'analyses',
      'one',
    ]);
    expect([...index.recipients('org1/live', 'analysis', 'anal_2')]).toEqual(['analyses']);
    expect([...index.recipients('org1/live', 'session', 'sess_1')]).toEqual(['sessions']);
    expect([...index.recipients('org2/live', 'session', 'sess_1')]).toEqual([]);

    expect(index.has('one', 'analysis', 'anal_1')).toBe(true);
    expect(index.has('one', 'session', 'anal_1')).toBe(false);
    expect(index.remove('analyses', 'session', '*')).toBe(false);
    expect(index.remove('analyses', 'analysis', '*')).toBe(true);
    expect([...index.recipients('org1/live', 'analysis', 'anal_2')]).toEqual([]);
    expect([...index.recipients('org1/live', 'session', 'sess_1')]).toEqual(['sessions']);
  });

  it('caps subscriptions per connection and forgets everything of a closed connection', () => {
    const index = new SubscriptionIndex<string>();
    index.register('a', 'org1/live');
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_CONNECTION; i++) {
      expect(index.add('a', 'session', `sess_${i}`)).toBe('added');
    }
    expect(index.add('a', 'session', 'sess_0')).toBe('present');
    expect(index.add('a', 'session', '*')).toBe('limit');
    expect(index.remove('a', 'session', 'sess_0')).toBe(true);
    expect(index.add('a', 'session', '*')).toBe('added');
    expect(index.subscriptionCount).toBe(MAX_SUBSCRIPTIONS_PER_CONNECTION);

    index.unregister('a');
    expect(index.connectionCount).toBe(0);
    expect(index.subscriptionCount).toBe(0);
    expect(index.recipients('org1/live', 'session', 'sess_1').size).toBe(0);
    expect(index.add('a', 'session', 'sess_1')).toBe('closed');
  });

  it('counts sessions and analyses together against the cap', () => {
    const index = new SubscriptionIndex<string>();
    index.register('a', 'org1/live');
    const half = MAX_SUBSCRIPTIONS_PER_CONNECTION / 2;
    for (let i = 0; i < half; i++) {
      expect(index.add('a', 'session', `sess_${i}`)).toBe('added');
      expect(index.add('a', 'analysis', `anal_${i}`)).toBe('added');
    }
    expect(index.add('a', 'analysis', '*')).toBe('limit');
    expect(index.add('a', 'session', '*')).toBe('limit');
    expect(index.remove('a', 'session', 'sess_0')).toBe(true);
    expect(index.add('a', 'analysis', '*')).toBe('added');

    index.unregister('a');
    expect(index.subscriptionCount).toBe(0);
    expect(index.recipients('org1/live', 'analysis', 'anal_1').size).toBe(0);
  });
});
