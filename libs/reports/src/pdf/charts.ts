import PDFDocument from 'pdfkit';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { HistorySummary } from '../history-report.js';
import { rateChart } from '../tabular-report.js';

/** The font of every chart and of the document: a PDF standard font, its metrics built into pdfkit. */
export const FONT = 'Helvetica';
export const BOLD_FONT = 'Helvetica-Bold';

/**
 * Vega measures label text to pad axes and legends; without a canvas it
 * estimates widths, which mis-pads labels once drawn in the PDF's font. Its
 * measurement is replaced by Helvetica's own metrics (pdfkit's AFM data),
 * from a document kept only for measuring.
 */
interface TextMetrics {
  width: (item: { fontSize?: number; fontWeight?: string | number }, text: unknown) => number;
}
let measuring: PDFKit.PDFDocument | null = null;
function measureWithPdfFont(): void {
  if (measuring) return;
  measuring = new PDFDocument({ autoFirstPage: false });
  const doc = measuring;
  // Exported by vega (from vega-scenegraph) but missing from its typings.
  const metrics = (vega as unknown as { textMetrics: TextMetrics }).textMetrics;
  metrics.width = (item, text) => {
    const bold = item.fontWeight === 'bold' || Number(item.fontWeight) >= 600;
    return doc
      .font(bold ? BOLD_FONT : FONT)
      .fontSize(item.fontSize ?? 11)
      .widthOfString(String(text ?? ''));
  };
}

const CONFIG = {
  font: FONT,
  axis: { labelFont: FONT, titleFont: FONT, labelFontSize: 9, titleFontSize: 10 },
  legend: { labelFont: FONT, titleFont: FONT, labelFontSize: 9, titleFontSize: 10 },
  title: { font: BOLD_FONT, fontSize: 12, anchor: 'start' as const },
  view: { stroke: null },
};
const WIDTH = 420;
const HEIGHT = 180;

/** A vega-lite chart as SVG text (vega.View.toSVG, no renderer, no canvas). */
export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  measureWithPdfFont();
  const compiled = compile({ ...spec, config: CONFIG } as TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Hit rate per month with its 95 % Wilson band, and the chance baseline as a rule. */
export function hitRateOverTime(summary: HistorySummary): TopLevelSpec {
  const values = summary.months
    .filter((month) => month.hitRate !== null)
    .map((month) => ({
      month: `${month.month}-01`,
      rate: month.hitRate!.value,
      low: month.hitRate!.ciLow,
      high: month.hitRate!.ciHigh,
      baseline: month.hitRate!.baseline,
      n: month.hitRate!.n,
    }));
  const x = {
    field: 'month',
    type: 'temporal' as const,
    timeUnit: 'yearmonth' as const,
    title: 'Month',
  };
  return {
    title: 'Hit rate over time (95 % Wilson interval)',
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    layer: [
      {
        mark: { type: 'area', opacity: 0.25, color: '#4c78a8' },
        encoding: {
          x,
          y: { field: 'low', type: 'quantitative', title: 'Hit rate', scale: { domain: [0, 1] } },
          y2: { field: 'high' },
        },
      },
      {
        mark: { type: 'line', point: true, color: '#4c78a8' },
        encoding: { x, y: { field: 'rate', type: 'quantitative' } },
      },
      {
        mark: { type: 'line', strokeDash: [4, 4], color: '#e45756' },
        encoding: { x, y: { field: 'baseline', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec;
}

/** Verified outcomes (hit, partial, miss) and unverified cases per type, stacked. */
export function outcomesByType(summary: HistorySummary): TopLevelSpec {
  const values = summary.byType.flatMap((row) => [
    { type: row.type, outcome: 'hit', cases: row.hits },
    { type: row.type, outcome: 'partial', cases: row.partials },
    { type: row.type, outcome: 'miss', cases: row.misses },
    { type: row.type, outcome: 'unverified', cases: row.cases - row.verified },
  ]);
  return {
    title: 'Outcomes by type',
    width: WIDTH,
    height: HEIGHT,
    data: { values },
    mark: 'bar',
    encoding: {
      y: { field: 'type', type: 'nominal', title: 'Type' },
      x: { field: 'cases', type: 'quantitative', title: 'Cases' },
      color: {
        field: 'outcome',
        type: 'nominal',
        title: 'Outcome',
        scale: {
          domain: ['hit', 'partial', 'miss', 'unverified'],
          range: ['#54a24b', '#eeca3b', '#e45756', '#bab0ac'],
        },
      },
    },
  } as TopLevelSpec;
}

/** Cases per month. */
export function casesOverTime(summary: HistorySummary): TopLevelSpec {
  return {
    title: 'Cases per month',
    width: WIDTH,
    height: HEIGHT,
    data: { values: summary.months.map((m) => ({ month: `${m.month}-01`, cases: m.cases })) },
    mark: 'bar',
    encoding: {
      x: { field: 'month', type: 'ordinal', timeUnit: 'yearmonth', title: 'Month' },
      y: { field: 'cases', type: 'quantitative', title: 'Cases' },
    },
  } as TopLevelSpec;
}

/** Hit rate per type with its interval, against its chance baseline. */
export function hitRateByType(summary: HistorySummary): TopLevelSpec {
  return rateChart(
    'Hit rate by type (95 % interval; red: chance baseline)',
    'Type',
    summary.byType.map((row) => ({ label: row.type, rate: row.hitRate })),
  );
}
