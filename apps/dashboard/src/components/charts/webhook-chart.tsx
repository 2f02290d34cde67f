import type { Dashboard } from '@sas/sdk';
import type { TopLevelSpec } from 'vega-lite';
import { ChartFigure } from './chart';
import { AMBER, clock, GREEN, periodBars, RED } from './spec';

const STATES = ['succeeded', 'failed', 'pending'] as const;
type State = (typeof STATES)[number];

interface DeliveryBar {
  /** The hour's start as a time of day: the axis and the table name it. */
  hour: string;
  state: State;
  deliveries: number;
}

function webhookSpec(bars: DeliveryBar[], hours: string[], width: number): TopLevelSpec {
  return {
    width: Math.max(120, width - 60),
    height: 140,
    data: { values: bars },
    name: 'deliveries',
    mark: { type: 'bar' },
    encoding: {
      ...periodBars(
        { field: 'hour', domain: hours, title: 'Hour starting' },
        { field: 'deliveries', title: 'Deliveries' },
      ),
      color: {
        field: 'state',
        type: 'nominal',
        title: 'State now',
        scale: { domain: [...STATES], range: [GREEN, RED, AMBER] },
        legend: { orient: 'bottom', direction: 'horizontal' },
      },
      order: { field: 'order', type: 'quantitative' },
    },
  } as TopLevelSpec;
}

/**
 * Every endpoint's deliveries of the last 24 hours per hour, stacked by state
 * now (failed: failed for good after its retries); the same figures in a table
 * behind "Show as table".
 */
export function WebhookChart({ hours }: { hours: Dashboard['webhooks']['per_hour'] }) {
  const total = (state: State) => hours.reduce((sum, hour) => sum + hour[state], 0);
  if (STATES.every((state) => total(state) === 0)) return null;
  const busy = hours.filter((hour) => STATES.some((state) => hour[state] > 0));
  const bars = busy.flatMap((hour) =>
    STATES.filter((state) => hour[state] > 0).map((state): DeliveryBar & { order: number } => ({
      hour: clock(hour.start),
      state,
      deliveries: hour[state],
      order: STATES.indexOf(state),
    })),
  );
  const summary = `Webhook deliveries per hour over the last 24 hours: ${STATES.map(
    (state) => `${total(state)} ${state}`,
  ).join(', ')} in all; ${busy
    .map(
      (hour) =>
        `from ${clock(hour.start)}: ${STATES.filter((state) => hour[state] > 0)
          .map((state) => `${hour[state]} ${state}`)
          .join(', ')}`,
    )
    .join('; ')}.`;
  return (
    <ChartFigure
      testId="webhook-chart"
      caption="Deliveries to all endpoints per hour over the last 24 hours, by state now"
      summary={summary}
      spec={(width) =>
        webhookSpec(
          bars,
          hours.map((hour) => clock(hour.start)),
          width,
        )
      }
      table={
        <table>
          <caption className="visually-hidden">
            Webhook deliveries per hour (hours with none left out)
          </caption>
          <thead>
            <tr>
              <th scope="col">Hour starting</th>
              <th scope="col">Succeeded</th>
              <th scope="col">Failed</th>
              <th scope="col">Pending</th>
            </tr>
          </thead>
          <tbody>
            {busy.map((hour) => (
              <tr key={hour.start}>
                <th scope="row">{clock(hour.start)}</th>
                <td>{hour.succeeded}</td>
                <td>{hour.failed}</td>
                <td>{hour.pending}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    />
  );
}
