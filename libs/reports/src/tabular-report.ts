import type { TopLevelSpec } from 'vega-lite';
import type { Rate } from '#statistics';

export type Cell = string | number | boolean | null;

/** A table of a report: the CSV is the report's main table, the PDF shows every table. */
export interface ReportTable {
  title: string;
  columns: string[];
  rows: Cell[][];
}

/**
 * A report made of figures, tables and charts (performance, usage): one
 * model, rendered as JSON (`json`), CSV (the main table) or PDF.
 */
export interface TabularReport {
  title: string;
  /** Sentences under the title: what the report covers and how its figures are computed. */
  notes: string[];
  charts: TopLevelSpec[];
  tables: ReportTable[];
  /** The CSV's table (one of `tables`). */
  main: ReportTable;
  /** The JSON document's body. */
  json: Record<string, unknown>;
}

/** The rate columns of a table row, in RATE_COLUMNS' order. */
export const RATE_COLUMNS = [
  'hit_rate',
  'successes',
  'n',
  'ci_low',
  'ci_high',
  'baseline',
  'p_value',
];

export function rateCells(rate: Rate | null): Cell[] {
  if (rate === null) return [null, 0, 0, null, null, null, null];
  return [rate.value, rate.successes, rate.n, rate.ciLow, rate.ciHigh, rate.baseline, rate.pValue];
}

export function rateJson(rate: Rate | null): Record<string, number> | null {
  if (rate === null) return null;
  return {
    value: rate.value,
    successes: rate.successes,
    n: rate.n,
    ci_low: rate.ciLow,
    ci_high: rate.ciHigh,
    baseline: rate.baseline,
    p_value: rate.pValue,
  };
}

/** Hit rates of labelled groups with their intervals against chance (a chart of TabularReport). */
export function rateChart(
  title: string,
  label: string,
  groups: { label: string; rate: Rate | null }[],
): TopLevelSpec {
  const values = groups
    .filter((g) => g.rate !== null)
    .map((g) => ({
      group: g.label,
      rate: g.rate!.value,
      low: g.rate!.ciLow,
      high: g.rate!.ciHigh,
      baseline: g.rate!.baseline,
    }));
  const y = { field: 'group', type: 'nominal' as const, title: label };
  return {
    title,
    width: 420,
    height: 180,
    data: { values },
    layer: [
      {
        mark: { type: 'rule', color: '#4c78a8' },
        encoding: {
          y,
          x: { field: 'low', type: 'quantitative', title: 'Hit rate', scale: { domain: [0, 1] } },
          x2: { field: 'high' },
        },
      },
      {
        mark: { type: 'point', filled: true, color: '#4c78a8' },
        encoding: { y, x: { field: 'rate', type: 'quantitative' } },
      },
      {
        mark: { type: 'tick', color: '#e45756' },
        encoding: { y, x: { field: 'baseline', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}
