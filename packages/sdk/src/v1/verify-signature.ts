import { verifyWebhook } from '../webhook-signatures.js';

/**
 * 1.x's check of the spec's `X-Service-Signature` alone: `true` when the
 * signature matches. It covers no timestamp, so replays pass; 2.0's
 * `verifyWebhook(secret, rawBody, headers)` also checks the Standard Webhooks
 * signature and its time, and returns the parsed body.
 *
 * @deprecated since 2.0: use verifyWebhook
 */
export async function verifySignature(
  rawBody: string,
  signatureHeader: string,
  secret: string,
): Promise<boolean> {
  try {
    await verifyWebhook(secret, rawBody, { 'x-service-signature': signatureHeader });
    return true;
  } catch {
    return false;
  }
}
