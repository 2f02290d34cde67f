import { describe, expect, it } from 'vitest';
import { openSealedSecret, sealSecret } from './sealed-secrets.js';

const SECRET = 'a-signing-key-secret-of-32-chars!!';

describe('sealed secrets', () => {
  it('open only for the purpose they were sealed for', () => {
    const response = sealSecret('{"key":"sk_live_x"}', SECRET, 'idempotent-response');
    expect(response).not.toContain('sk_live_x');
    expect(openSealedSecret(response, SECRET, 'idempotent-response')).toBe('{"key":"sk_live_x"}');
    expect(() => openSealedSecret(response, SECRET)).toThrow();
    expect(() =>
      openSealedSecret(sealSecret('jwk', SECRET), SECRET, 'idempotent-response'),
    ).toThrow();
  });

  it('use a fresh nonce each time', () => {
    expect(sealSecret('same', SECRET)).not.toBe(sealSecret('same', SECRET));
  });

  it('are kept as they are without SIGNING_KEY_SECRET (development only)', () => {
    const kept = sealSecret('visible', null);
    expect(kept).toBe('plain:visible');
    expect(openSealedSecret(kept, null)).toBe('visible');
  });
});
