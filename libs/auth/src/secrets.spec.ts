import { describe, expect, it } from 'vitest';
import { openSealedSecret, sealSecret } from '#common';
import { hashSecret, verifySecret } from './secret-hash.js';

describe('client secret hashes', () => {
  it('verify the right secret only, and salt every hash', async () => {
    const hash = await hashSecret('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain('correct horse');
    expect(await verifySecret('correct horse battery staple', hash)).toBe(true);
    expect(await verifySecret('correct horse battery stapl', hash)).toBe(false);
    expect(await hashSecret('correct horse battery staple')).not.toBe(hash);
    expect(await verifySecret('x', 'not-a-hash')).toBe(false);
  });
});

describe('private signing keys at rest', () => {
  const secret = 'a-signing-key-secret-of-32-chars!!';

  it('are sealed with AES-GCM when a secret is set, and open only with it', () => {
    const sealed = sealSecret('{"d":"private"}', secret);
    expect(sealed).toMatch(/^enc:v1:/);
    expect(sealed).not.toContain('private');
    expect(openSealedSecret(sealed, secret)).toBe('{"d":"private"}');
    expect(() => openSealedSecret(sealed, 'another-secret-of-thirty-two-chars')).toThrow();
    expect(() => openSealedSecret(sealed, null)).toThrow(/SIGNING_KEY_SECRET/);
  });

  it('detect tampering', () => {
    const sealed = sealSecret('{"d":"private"}', secret);
    const tampered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => openSealedSecret(tampered, secret)).toThrow();
  });
});
