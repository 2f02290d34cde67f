import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commitTarget, targetCommitment, targetReferenceNumber } from './target-commitment.js';

describe('target commitment', () => {
  it('is the SHA-256 of "{nonce}:{target}" in UTF-8, as anyone can recompute', () => {
    // Worked example: sha256("00112233445566778899aabbccddeeff:Eiffel Tower, Paris").
    const nonce = '00112233445566778899aabbccddeeff';
    const expected = createHash('sha256')
      .update(Buffer.from(`${nonce}:Eiffel Tower, Paris`, 'utf8'))
      .digest('hex');
    expect(targetCommitment(nonce, 'Eiffel Tower, Paris')).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes non-ASCII targets as UTF-8 bytes', () => {
    const nonce = 'ff'.repeat(16);
    const target = 'Škocjan Caves — Slovenija';
    expect(targetCommitment(nonce, target)).toBe(
      createHash('sha256')
        .update(Buffer.from(`${nonce}:${target}`, 'utf8'))
        .digest('hex'),
    );
  });

  it('uses a fresh nonce each time, so the same target commits differently', () => {
    const a = commitTarget('The Golden Gate Bridge');
    const b = commitTarget('The Golden Gate Bridge');
    expect(a.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.commitment).not.toBe(b.commitment);
    expect(targetCommitment(a.nonce, 'The Golden Gate Bridge')).toBe(a.commitment);
    expect(targetCommitment(a.nonce, 'The Golden Gate Bridge.')).not.toBe(a.commitment);
  });

  it('draws reference numbers as two random groups of four digits', () => {
    const numbers = Array.from({ length: 200 }, targetReferenceNumber);
    for (const number of numbers) expect(number).toMatch(/^\d{4}-\d{4}$/);
    expect(new Set(numbers).size).toBeGreaterThan(190);
  });
});
