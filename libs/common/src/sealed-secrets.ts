import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Secrets kept at rest (private signing keys, cookie keys, webhook signing secrets): AES-256-GCM under a key derived from SIGNING_KEY_SECRET. */
const PREFIX = 'enc:v1:';
const PLAIN_PREFIX = 'plain:';

/** Derived once per process: every webhook delivery opens a sealed secret. */
let derived: { secret: string; key: Buffer } | null = null;

function keyFrom(secret: string): Buffer {
  if (derived?.secret !== secret) {
    derived = {
      secret,
      key: Buffer.from(hkdfSync('sha256', secret, 'sas-signing-keys', 'private-jwk', 32)),
    };
  }
  return derived.key;
}

export function sealSecret(plaintext: string, secret: string | null): string {
  if (secret === null) return PLAIN_PREFIX + plaintext;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secret), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
}

export function openSealedSecret(stored: string, secret: string | null): string {
  if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
  if (!stored.startsWith(PREFIX)) throw new Error('unknown sealed secret format');
  if (secret === null) throw new Error('SIGNING_KEY_SECRET is required to read the stored secrets');
  const [iv, tag, sealed] = stored.slice(PREFIX.length).split(':') as [string, string, string];
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(secret), Buffer.from(iv, 'base64'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString(
    'utf8',
  );
}
