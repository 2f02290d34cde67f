/** Planar weighted geometric median (Weiszfeld with the Vardi–Zhang step). */

export interface WeightedXY {
  x: number;
  y: number;
  w: number;
}

export interface WeiszfeldOptions {
  /** Stop when an iteration moves less than this share of the spread. */
  relativeTolerance: number;
  maxIterations: number;
}

/**
 * Minimises Σ wᵢ·|p − xᵢ| in the plane. Plain Weiszfeld divides by zero when
 * an iterate lands on a data point; the Vardi–Zhang (2000) step handles that
 * case and still converges to the true median. Coincident points are merged
 * and zero weights dropped first. Needs at least one positive weight.
 */
export function weiszfeld(
  points: readonly WeightedXY[],
  options: WeiszfeldOptions,
): { x: number; y: number } {
  const merged = mergeCoincident(points);
  if (merged.length === 0) throw new RangeError('weiszfeld needs a point with positive weight');
  if (merged.length === 1) return { x: merged[0]!.x, y: merged[0]!.y };

  // Start at the weighted mean: inside the convex hull, usually close.
  const totalW = merged.reduce((s, p) => s + p.w, 0);
  let x = merged.reduce((s, p) => s + p.w * p.x, 0) / totalW;
  let y = merged.reduce((s, p) => s + p.w * p.y, 0) / totalW;
  const spread = merged.reduce((m, p) => Math.max(m, distance(p.x - x, p.y - y)), 0);
  const tolerance = options.relativeTolerance * spread;

  for (let iteration = 0; iteration < options.maxIterations; iteration++) {
    const next = vardiZhangStep(merged, x, y, tolerance * 1e-3);
    const moved = distance(next.x - x, next.y - y);
    x = next.x;
    y = next.y;
    if (moved <= tolerance) break;
  }
  return { x, y };
}

function vardiZhangStep(points: readonly WeightedXY[], x: number, y: number, sameDistance: number) {
  let sumWx = 0;
  let sumWy = 0;
  let sumW = 0;
  let rx = 0;
  let ry = 0;
  let coincidentWeight = 0;
  for (const p of points) {
    const d = distance(p.x - x, p.y - y);
    if (d <= sameDistance) {
      coincidentWeight += p.w;
      continue;
    }
    sumWx += (p.w * p.x) / d;
    sumWy += (p.w * p.y) / d;
    sumW += p.w / d;
    rx += (p.w * (p.x - x)) / d;
    ry += (p.w * (p.y - y)) / d;
  }
  if (sumW === 0) return { x, y };
  const tx = sumWx / sumW;
  const ty = sumWy / sumW;
  if (coincidentWeight === 0) return { x: tx, y: ty };
  // On a data point: it is the median when the pull of the others (|R|)
  // does not exceed its own weight; otherwise step partway towards T.
  const r = distance(rx, ry);
  if (r <= coincidentWeight) return { x, y };
  const keep = coincidentWeight / r;
  return { x: (1 - keep) * tx + keep * x, y: (1 - keep) * ty + keep * y };
}

/** √(dx² + dy²): Math.hypot guards against overflow we cannot hit here and
 *  is several times slower, which matters inside the iteration. */
function distance(dx: number, dy: number): number {
  return Math.sqrt(dx * dx + dy * dy);
}

function mergeCoincident(points: readonly WeightedXY[]): WeightedXY[] {
  // Keyed by number (x, then y): exact coincidence, no string formatting.
  const byX = new Map<number, Map<number, WeightedXY>>();
  const merged: WeightedXY[] = [];
  for (const p of points) {
    if (!(p.w > 0)) continue;
    let byY = byX.get(p.x);
    if (!byY) byX.set(p.x, (byY = new Map()));
    const same = byY.get(p.y);
    if (same) {
      same.w += p.w;
    } else {
      const copy = { x: p.x, y: p.y, w: p.w };
      byY.set(p.y, copy);
      merged.push(copy);
    }
  }
  return merged;
}
