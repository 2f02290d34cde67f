import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Secrets kept at rest (private signing keys, cookie keys, webhook signing secrets): AES-256-GCM under a key derived from SIGNING_KEY_SECRET. */
const PREFIX = 'enc:v1:';
const PLAIN_PREFIX = 'plain:';

/**
 * What a sealed value is for; each purpose has a key of its own, so a value
 * sealed for one can never be opened as another. `secret` is the original
 * purpose (signing keys, cookie keys, webhook secrets).
 */
export type SealPurpose = 'secret' | 'idempotent-response' | 'sso-credential';
const HKDF_INFO: Record<SealPurpose, string> = {
  secret: 'private-jwk',
  'idempotent-response': 'idempotent-response',
  'sso-credential': 'sso-credential',
};

/** Derived once per process and purpose: every webhook delivery opens a sealed secret. */
const derived = new Map<SealPurpose, { secret: string; key: Buffer }>();

function keyFrom(secret: string, purpose: SealPurpose): Buffer {
  const cached = derived.get(purpose);
  if (cached?.secret === secret) return cached.key;
  const key = Buffer.from(hkdfSync('sha256', secret, 'sas-signing-keys', HKDF_INFO[purpose], 32));
  derived.set(purpose, { secret, key });
  return key;
}

/** Without SIGNING_KEY_SECRET (development only: production refuses to start) the value is kept as it is. */
export function sealSecret(
  plaintext: string,
  secret: string | null,
  purpose: SealPurpose = 'secret',
): string {
  if (secret === null) return PLAIN_PREFIX + plaintext;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secret, purpose), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${sealed.toString('base64')}`;
}

export function openSealedSecret(
  stored: string,
  secret: string | null,
  purpose: SealPurpose = 'secret',
): string {
  if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
  if (!stored.startsWith(PREFIX)) throw new Error('unknown sealed secret format');
  if (secret === null) throw new Error('SIGNING_KEY_SECRET is required to read the stored secrets');
  const [iv, tag, sealed] = stored.slice(PREFIX.length).split(':') as [string, string, string];
  const decipher = createDecipheriv(
    'aes-256-gcm',
    keyFrom(secret, purpose),
    Buffer.from(iv, 'base64'),
  );
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString(
    'utf8',
  );
}
