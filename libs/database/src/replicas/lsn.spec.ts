import { describe, expect, it } from 'vitest';
import { parseLsn } from './lsn.js';

describe('parseLsn', () => {
  it('reads the two hexadecimal halves as one byte position, in order', () => {
    expect(parseLsn('0/0')).toBe(0);
    expect(parseLsn('0/16B3748')).toBe(0x16b3748);
    expect(parseLsn('16/B374D848')).toBe(0x16 * 2 ** 32 + 0xb374d848);
    expect(parseLsn('1/0')).toBeGreaterThan(parseLsn('0/FFFFFFFF'));
  });

  it('refuses anything else', () => {
    expect(() => parseLsn('16B374D848')).toThrow('is not a WAL position');
    expect(() => parseLsn('')).toThrow('is not a WAL position');
  });
});
