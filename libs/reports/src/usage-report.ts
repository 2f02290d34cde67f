import type { Tenant } from '#common';
import type { Transaction } from '#database';
import type { HistoryReadModelRepository } from '#history';
import type { ReportParameters } from './report.js';
import type { Cell, TabularReport } from './tabular-report.js';

/**
 * Work finished per UTC day and kind (session, analysis, dowsing query,
 * import), completed and failed, from the history (every finished piece of
 * work is a case; classified ones are not counted, work still running is not
 * yet a case).
 */
export async function usageReport(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
): Promise<TabularReport> {
  const rows = await cases.finishedPerDay(tenant, parameters, snapshot);
  const totals = new Map<string, { finished: number; completed: number; failed: number }>();
  for (const row of rows) {
    const total = totals.get(row.kind) ?? { finished: 0, completed: 0, failed: 0 };
    total.finished += row.finished;
    total.completed += row.completed;
    total.failed += row.failed;
    totals.set(row.kind, total);
  }
  const main = {
    title: 'Finished work per day and kind',
    columns: ['day', 'kind', 'finished', 'completed', 'failed'],
    rows: rows.map((r): Cell[] => [r.day, r.kind, r.finished, r.completed, r.failed]),
  };
  const byKind = {
    title: 'Totals by kind',
    columns: ['kind', 'finished', 'completed', 'failed'],
    rows: [...totals].map(([kind, t]): Cell[] => [kind, t.finished, t.completed, t.failed]),
  };
  return {
    title: 'Usage report',
    notes: [
      'Work finished per UTC day and kind (sessions, analyses, dowsing queries, imported cases), from the history: completed and failed.',
      'Classified work is not counted; work still queued or running is not yet in the history.',
    ],
    charts: [
      {
        title: 'Finished work per day',
        width: 420,
        height: 180,
        data: { values: rows.map((r) => ({ day: r.day, kind: r.kind, finished: r.finished })) },
        mark: 'bar',
        encoding: {
          x: { field: 'day', type: 'temporal', timeUnit: 'yearmonthdate', title: 'Day' },
          y: { field: 'finished', type: 'quantitative', title: 'Finished' },
          color: { field: 'kind', type: 'nominal', title: 'Kind' },
        },
      },
    ],
    tables: [byKind, main],
    main,
    json: {
      by_kind: [...totals].map(([kind, t]) => ({ kind, ...t })),
      by_day: rows,
    },
  };
}
