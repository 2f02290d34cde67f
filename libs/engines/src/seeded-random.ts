import { createHash } from 'node:crypto';

/** Hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * xoshiro128** (Blackman & Vigna 2018): a small, fast, well-tested 32-bit
 * generator, written out here so results never change with a dependency.
 * Its 128-bit state is the first 16 bytes of SHA-256(seed ∥ "/" ∥ stream):
 * every part of a simulation draws from its own named stream, so adding a
 * draw in one place does not shift the numbers anywhere else.
 */
export class SeededRandom {
  private readonly s: Uint32Array;

  constructor(seed: string, stream: string) {
    const digest = createHash('sha256').update(`${seed}/${stream}`, 'utf8').digest();
    this.s = new Uint32Array([0, 1, 2, 3].map((i) => digest.readUInt32LE(4 * i)));
    // The all-zero state is the one fixed point; SHA-256 will not produce it,
    // but guard anyway so the generator can never get stuck.
    if (this.s.every((word) => word === 0)) this.s[0] = 0x9e3779b9;
  }

  /** A generator with an explicit state, for checking against reference output. */
  static fromState(state: readonly [number, number, number, number]): SeededRandom {
    const random = new SeededRandom('', '');
    random.s.set(state);
    return random;
  }

  /** Next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Uniform integer in [min, max] (inclusive), without modulo bias. */
  int(min: number, max: number): number {
    const span = max - min + 1;
    if (!Number.isInteger(span) || span < 1 || span > 2 ** 32)
      throw new RangeError(`bad range [${min}, ${max}]`);
    const limit = 2 ** 32 - (2 ** 32 % span);
    let x = this.nextUint32();
    while (x >= limit) x = this.nextUint32();
    return min + (x % span);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('cannot pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** k distinct items in random order (partial Fisher–Yates). */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = [...items];
    const count = Math.min(k, copy.length);
    for (let i = 0; i < count; i++) {
      const j = this.int(i, copy.length - 1);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, count);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
