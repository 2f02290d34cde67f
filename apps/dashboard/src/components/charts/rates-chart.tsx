import type { Api } from '@sas/sdk';
import type { TopLevelSpec } from 'vega-lite';
import { ChartFigure } from './chart';
import { BLUE, fitWidth, percent, RED, words } from './spec';

/** A labelled group's hit rate (null: no verified case). */
export interface RateGroup {
  label: string;
  rate: Api.RateDto | null;
}

interface RatePoint {
  label: string;
  rate: number;
  low: number;
  high: number;
  chance: number;
}

/** Each group's hit rate with its 95 % interval, and its chance baseline as a red mark. */
function ratesSpec(points: RatePoint[], width: number): TopLevelSpec {
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: null };
  const x = {
    type: 'quantitative' as const,
    title: 'Hit rate',
    scale: { domain: [0, 1] },
    axis: { format: '%', tickCount: 5 },
  };
  return {
    ...fitWidth(width),
    height: { step: 32 },
    data: { values: points },
    layer: [
      {
        name: 'interval',
        mark: { type: 'rule', color: BLUE, strokeWidth: 2 },
        encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' } },
      },
      {
        name: 'rate',
        mark: { type: 'point', filled: true, color: BLUE, size: 70, opacity: 1 },
        encoding: { y, x: { ...x, field: 'rate' } },
      },
      {
        name: 'chance',
        mark: { type: 'tick', color: RED, thickness: 2, size: 18 },
        encoding: { y, x: { ...x, field: 'chance' } },
      },
    ],
  } as TopLevelSpec;
}

/**
 * Hit rates with their 95 % (Wilson) intervals against chance, as the PDF
 * reports draw them; groups without a verified case are left out of the
 * drawing and said so (the table beside it lists every group).
 */
export function RatesChart({ groups, caption }: { groups: RateGroup[]; caption: string }) {
  const points = groups
    .filter((group) => group.rate !== null)
    .map(({ label, rate }): RatePoint => ({
      label: words(label),
      rate: rate!.value,
      low: rate!.ci_low,
      high: rate!.ci_high,
      chance: rate!.baseline,
    }));
  if (points.length === 0) return null;
  const unrated = groups.filter((group) => group.rate === null).map((group) => words(group.label));
  const summary = `${caption}: ${points
    .map(
      (point) =>
        `${point.label} ${percent(point.rate)} (95 % interval ${percent(point.low)} – ${percent(point.high)}; chance ${percent(point.chance)})`,
    )
    .join('; ')}${unrated.length > 0 ? `; no verified case: ${unrated.join(', ')}` : ''}.`;
  return (
    <ChartFigure
      testId="rates-chart"
      caption={`${caption} (dot: hit rate; blue line: 95 % interval; red mark: chance)`}
      summary={summary}
      spec={(width) => ratesSpec(points, width)}
    />
  );
}
