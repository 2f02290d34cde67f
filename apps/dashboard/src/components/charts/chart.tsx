import { Component, lazy, type ReactNode, Suspense } from 'react';
import type { SpecFor } from './spec';
import './charts.css';

// A chart as pages place it: a figure with its caption, the drawing (Vega, loaded with the
// first chart, outside the dashboard's first load), and the same figures as a table.

const VegaView = lazy(() => import('./vega-view'));

/**
 * A figure: its caption, the chart named by `summary` (its text alternative:
 * the figures in words), and `table` — the same figures — behind a "Show as
 * table" disclosure. Pages that keep their table beside the chart pass none.
 */
export function ChartFigure({
  caption,
  summary,
  spec,
  table,
  testId,
}: {
  caption: ReactNode;
  summary: string;
  spec: SpecFor;
  table?: ReactNode;
  testId?: string;
}) {
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption>{caption}</figcaption>
      <ChartBoundary>
        <Suspense fallback={<p className="muted chart-loading">Drawing the chart…</p>}>
          <VegaView spec={spec} summary={summary} />
        </Suspense>
      </ChartBoundary>
      {table && (
        <details className="chart-table">
          <summary>Show as table</summary>
          {table}
        </details>
      )}
    </figure>
  );
}

/** A chart whose code could not be loaded leaves its figures to the table. */
class ChartBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? (
      <p className="muted">The chart could not be loaded; the table holds its figures.</p>
    ) : (
      this.props.children
    );
  }
}
