/**
 * mulberry32 (Tommy Ettinger, public domain): a tiny 32-bit PRNG. Used only
 * to tabulate null distributions by simulation with fixed seeds, so those
 * tables — and every number derived from them — are deterministic.
 * Returns a function yielding uniforms in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
