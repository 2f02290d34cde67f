import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
// Receivers verify with the SDK's verifyWebhook: what the service signs, the SDK must accept.
import { verifyWebhook, WebhookVerificationError } from '@sas/sdk';
import { generateSigningSecret, serviceSignature, signatureHeaders } from './signatures.js';

const body = '{"id":"evt_01","type":"session.completed"}';
const now = new Date('2026-11-23T12:00:00Z');
const timestamp = Math.floor(now.getTime() / 1000);

describe('webhook signatures', () => {
  it('sign the raw body as the spec says: sha256= and the lowercase hex HMAC keyed with the secret', () => {
    const secret = 'a-secret-of-my-own-choosing-24';
    const expected = createHmac('sha256', secret).update(body).digest('hex');
    expect(serviceSignature(secret, body)).toBe(`sha256=${expected}`);
  });

  it('are Standard Webhooks signatures an independent library accepts', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The library checks the timestamp against its own clock.
    const headers = signatureHeaders([secret], 'evt_01', Math.floor(Date.now() / 1000), body);
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': headers['webhook-id'],
      'webhook-timestamp': headers['webhook-timestamp'],
      'webhook-signature': headers['webhook-signature'],
    });
    expect(verified).toEqual(JSON.parse(body));
  });

  it('carry one signature per secret during a rotation; either secret verifies', async () => {
    const [current, previous] = [generateSigningSecret(), generateSigningSecret()];
    const headers = signatureHeaders([current, previous], 'evt_01', timestamp, body);
    expect(headers['x-service-signature'].split(',')).toHaveLength(2);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) {
      expect(await verifyWebhook(secret, body, { ...headers }, { now })).toEqual(JSON.parse(body));
    }
    await expect(
      verifyWebhook(generateSigningSecret(), body, { ...headers }, { now }),
    ).rejects.toThrow(WebhookVerificationError);
  });

  it('refuse a forged body, a stale timestamp and half a set of headers', async () => {
    const secret = generateSigningSecret();
    const headers = { ...signatureHeaders([secret], 'evt_01', timestamp, body) };
    await expect(
      verifyWebhook(secret, body.replace('completed', 'failed'), headers, { now }),
    ).rejects.toThrow(/does not match/);
    const later = new Date(now.getTime() + 6 * 60_000);
    await expect(verifyWebhook(secret, body, headers, { now: later })).rejects.toThrow(/tolerance/);
    const { 'webhook-signature': _dropped, ...partial } = headers;
    await expect(verifyWebhook(secret, body, partial, { now })).rejects.toThrow(/incomplete/);
    await expect(verifyWebhook(secret, body, {}, { now })).rejects.toThrow(
      /missing X-Service-Signature/,
    );
    // Fetch's Headers as well as a plain object, as a browser or an edge runtime holds them.
    expect(await verifyWebhook(secret, body, new Headers(headers), { now })).toEqual(
      JSON.parse(body),
    );
  });
});
