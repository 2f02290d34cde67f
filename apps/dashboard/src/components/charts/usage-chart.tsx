import type { Dashboard } from '@sas/sdk';
import type { TopLevelSpec } from 'vega-lite';
import { ChartFigure } from './chart';
import { BLUE, fitWidth, percent, RED } from './spec';

interface UsageBar {
  /** On the axis: short. */
  label: string;
  /** In the text alternative: whole. */
  words: string;
  used: number;
  limit: number;
  share: number;
}

/**
 * What is counted against a limit now: requests in the plan's minute and
 * the tier's hour and day windows (the counters hold only the current
 * window, no history), and running work against the concurrent limit.
 */
export function usageBars(usage: Dashboard['usage']): UsageBar[] {
  const bar = (label: string, words: string, used: number, limit: number): UsageBar => ({
    label: `${label}: ${used} of ${limit}`,
    words: `${words}: ${used} of ${limit}`,
    used,
    limit,
    share: used / limit,
  });
  const bars = usage.requests
    .filter((window) => window.used !== null && window.limit !== null && window.limit > 0)
    .map((window) =>
      bar(`This ${window.window}`, `Requests this ${window.window}`, window.used!, window.limit!),
    );
  const { concurrent } = usage;
  if (concurrent.limit !== null && concurrent.limit > 0) {
    bars.push(bar('Sessions running', 'Sessions running', concurrent.sessions, concurrent.limit));
    bars.push(bar('Analyses running', 'Analyses running', concurrent.analyses, concurrent.limit));
  }
  return bars;
}

function usageSpec(bars: UsageBar[], width: number): TopLevelSpec {
  const top = Math.max(1, ...bars.map((bar) => bar.share));
  const y = {
    field: 'label',
    type: 'nominal' as const,
    title: null,
    sort: null,
    axis: { labelLimit: Math.round(width / 2) },
  };
  return {
    ...fitWidth(width),
    height: { step: 28 },
    data: { values: bars },
    layer: [
      {
        name: 'usage',
        mark: { type: 'bar', color: BLUE },
        encoding: {
          y,
          x: {
            field: 'share',
            type: 'quantitative',
            title: 'Share of the limit used',
            scale: { domain: [0, top] },
            axis: { format: '%', tickCount: 4 },
          },
        },
      },
      {
        name: 'limit',
        data: { values: [{ share: 1 }] },
        mark: { type: 'rule', color: RED, strokeDash: [4, 3], strokeWidth: 2 },
        encoding: { x: { field: 'share', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}

/** Usage against the plan's and tier's limits as bars (the table beside it has the figures). */
export function UsageChart({ usage }: { usage: Dashboard['usage'] }) {
  const bars = usageBars(usage);
  if (bars.length === 0) return null;
  const summary = `Used against limits now: ${bars
    .map((bar) => `${bar.words} (${percent(bar.share)})`)
    .join('; ')}.`;
  return (
    <ChartFigure
      testId="usage-chart"
      caption="Requests counted this minute, hour and day, and work running now, against their limits (red line: the limit)"
      summary={summary}
      spec={(width) => usageSpec(bars, width)}
    />
  );
}
