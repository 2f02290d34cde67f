import type { SimulatedSketch } from './session-engine.js';
import { SeededRandom } from './seeded-random.js';

const TEMPLATES = [
  (a: string, b: string) => `Rough outline: something ${a}, a sense of ${b}`,
  (a: string, b: string) => `Loose sketch: ${a} forms beside something ${b}`,
  (a: string, b: string) => `Quick strokes: ${a} shapes, impression of ${b}`,
  (a: string, b: string) => `Gestural drawing, mostly ${a}; ${b} towards the edge`,
] as const;

/**
 * 1–3 sketches per result, each described from the session's descriptors
 * (the picture itself is drawn later from the seed by renderSketchSvg).
 */
export function describeSketches(seed: string, descriptors: readonly string[]): SimulatedSketch[] {
  const random = new SeededRandom(seed, 'sketches');
  const count = random.int(1, 3);
  const words = descriptors.length > 0 ? descriptors : ['indistinct'];
  return Array.from({ length: count }, (_, index) => {
    const [a, b] = random.sample(words, 2);
    return { index, description: random.pick(TEMPLATES)(a!, b ?? a!) };
  });
}
