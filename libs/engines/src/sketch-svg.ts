import { SeededRandom } from './seeded-random.js';

const SIZE = 256;
const INK = ['#222222', '#2b2b3a', '#3a2e24'] as const;

/**
 * A deterministic hand-sketch-like SVG for (seed, index): 256×256, a paper
 * background and a few seeded strokes — wobbly quadratic curves, circles,
 * straight lines and a patch of hatching. Self-contained (no external
 * references, no script), so it is safe to serve as image/svg+xml.
 */
export function renderSketchSvg(seed: string, index: number): string {
  if (!Number.isInteger(index) || index < 0)
    throw new RangeError(`sketch index must be a non-negative integer, got ${index}`);
  const random = new SeededRandom(seed, `sketch-svg/${index}`);
  const ink = random.pick(INK);
  const shapes: string[] = [];
  const strokeCount = random.int(3, 6);
  for (let i = 0; i < strokeCount; i++) shapes.push(randomStroke(random));
  if (random.next() < 0.5) shapes.push(hatching(random));
  const title = escapeXml(`Simulated sketch ${index + 1} (seed ${seed.slice(0, 12)})`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}" role="img">`,
    `<title>${title}</title>`,
    `<rect width="${SIZE}" height="${SIZE}" fill="#fbf8f1"/>`,
    `<g fill="none" stroke="${ink}" stroke-linecap="round" stroke-linejoin="round">`,
    ...shapes,
    '</g>',
    '</svg>',
  ].join('\n');
}

function randomStroke(random: SeededRandom): string {
  const width = fmt(1 + 2 * random.next());
  switch (random.int(0, 2)) {
    case 0:
      return `<path d="${wobblyCurve(random)}" stroke-width="${width}"/>`;
    case 1: {
      const r = 12 + 50 * random.next();
      return `<circle cx="${coord(random, r)}" cy="${coord(random, r)}" r="${fmt(r)}" stroke-width="${width}"/>`;
    }
    default:
      return `<line x1="${coord(random)}" y1="${coord(random)}" x2="${coord(random)}" y2="${coord(random)}" stroke-width="${width}"/>`;
  }
}

/** A chain of quadratic Béziers: the hand never moves in straight lines. */
function wobblyCurve(random: SeededRandom): string {
  const segments = random.int(2, 4);
  let d = `M ${coord(random)} ${coord(random)}`;
  for (let i = 0; i < segments; i++)
    d += ` Q ${coord(random)} ${coord(random)} ${coord(random)} ${coord(random)}`;
  return d;
}

function hatching(random: SeededRandom): string {
  const x = 20 + 150 * random.next();
  const y = 20 + 150 * random.next();
  const lines: string[] = [];
  for (let i = 0; i < random.int(4, 8); i++) {
    const offset = i * 7;
    lines.push(
      `M ${fmt(x + offset)} ${fmt(y)} L ${fmt(x + offset + 30 + 6 * random.next())} ${fmt(y + 40)}`,
    );
  }
  return `<path d="${lines.join(' ')}" stroke-width="1" opacity="0.7"/>`;
}

/** A coordinate kept `margin` inside the canvas. */
function coord(random: SeededRandom, margin = 12): string {
  return fmt(margin + (SIZE - 2 * margin) * random.next());
}

function fmt(n: number): string {
  return n.toFixed(1);
}

/** Escapes markup and drops characters XML 1.0 cannot carry at all. */
export function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
