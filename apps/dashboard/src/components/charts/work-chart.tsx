import type { Dashboard } from '@sas/sdk';
import type { TopLevelSpec } from 'vega-lite';
import { ChartFigure } from './chart';
import { dayMonth, periodBars, statusScale, words } from './spec';

const DAY_MS = 86_400_000;
const KIND_NAMES: Record<string, string> = {
  session: 'Sessions',
  analysis: 'Analyses',
  dowsing_query: 'Dowsing queries',
};

interface WorkBar {
  /** The day the 24 hours end on, as the axis and the table name it. */
  day: string;
  kind: string;
  status: string;
  count: number;
}

/** The 30 periods' end days, oldest first: the axis, with days of no work too. */
function periodDays(generatedAt: string): string[] {
  const end = Date.parse(generatedAt);
  return Array.from({ length: 30 }, (_, index) =>
    dayMonth(new Date(end - (29 - index) * DAY_MS).toISOString()),
  );
}

function workSpec(bars: WorkBar[], days: string[], width: number): TopLevelSpec {
  const colours = statusScale(bars.map((bar) => bar.status));
  return {
    data: { values: bars },
    facet: {
      row: {
        field: 'kind',
        type: 'nominal',
        title: null,
        header: { labelAngle: 0, labelOrient: 'top', labelAnchor: 'start', labelFontWeight: 600 },
      },
    },
    spec: {
      // The facet's width is its plot's: room left for the count axis and some padding.
      width: Math.max(120, width - 60),
      height: 90,
      name: 'work',
      mark: { type: 'bar' },
      encoding: {
        ...periodBars(
          { field: 'day', domain: days, title: null },
          { field: 'count', title: 'Created' },
        ),
        color: {
          field: 'status',
          type: 'nominal',
          title: 'Status now',
          scale: colours,
          legend: { orient: 'bottom', direction: 'horizontal', columns: 3 },
        },
      },
    },
  } as TopLevelSpec;
}

/**
 * Work created per day of the last 30, by kind (a row each) and status now,
 * stacked; the same figures in a table behind "Show as table".
 */
export function WorkChart({
  days,
  generatedAt,
}: {
  days: Dashboard['work_per_day'];
  generatedAt: string;
}) {
  if (days.length === 0) return null;
  const bars = days.map((day): WorkBar => ({
    day: dayMonth(new Date(Date.parse(day.start) + DAY_MS).toISOString()),
    kind: KIND_NAMES[day.kind] ?? words(day.kind),
    status: words(day.status),
    count: day.count,
  }));
  const axis = periodDays(generatedAt);
  const totals = new Map<string, number>();
  for (const bar of bars) totals.set(bar.kind, (totals.get(bar.kind) ?? 0) + bar.count);
  const busiest = [...bars].sort((a, b) => b.count - a.count)[0]!;
  const summary = `Work created per day over the last 30 days, in all: ${[...totals]
    .map(([kind, total]) => `${kind.toLowerCase()} ${total}`)
    .join(', ')}; most in one day and status: ${busiest.count} ${busiest.kind.toLowerCase()} ${
    busiest.status
  }, on ${busiest.day}.`;
  return (
    <ChartFigure
      testId="work-chart"
      caption="Work created per day over the last 30 days, by its status now (each day: the 24 hours up to this time of day)"
      summary={summary}
      spec={(width) => workSpec(bars, axis, width)}
      table={
        <table>
          <caption className="visually-hidden">
            Work created per day, by kind and status now
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Kind</th>
              <th scope="col">Status now</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar) => (
              <tr key={`${bar.day}-${bar.kind}-${bar.status}`}>
                <th scope="row">{bar.day}</th>
                <td>{bar.kind}</td>
                <td>{bar.status}</td>
                <td>{bar.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    />
  );
}
