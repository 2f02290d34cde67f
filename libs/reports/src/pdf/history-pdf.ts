import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import type { Rate } from '#statistics';
import type { HistorySummary } from '../history-report.js';
import {
  BOLD_FONT,
  casesOverTime,
  chartSvg,
  FONT,
  hitRateByType,
  hitRateOverTime,
  outcomesByType,
} from './charts.js';

/** Cases listed in the PDF's table at most; the CSV and JSON hold every case. */
export const PDF_CASE_ROWS = 1000;

export interface HistoryPdfInput {
  reportId: string;
  generatedAt: Date;
  mode: string;
  parameters: { dateFrom: string | null; dateTo: string | null; type: string | null };
  summary: HistorySummary;
  /** The newest cases first (at most PDF_CASE_ROWS are read). */
  cases: AsyncIterable<Record<string, unknown>>;
}

export const MARGIN = 50;
const PAGE = { width: 595.28, height: 841.89 }; // A4 in points

/**
 * A history report as a PDF (pdfkit): a title page, the figures with their
 * intervals, four charts (vega-lite → SVG → svg-to-pdfkit, vector) and the
 * tables, which continue on new pages with their header repeated. The
 * creation date is `generatedAt`, so the same input gives the same bytes.
 */
export async function historyPdf(
  input: HistoryPdfInput,
): Promise<{ content: Buffer; rowCount: number }> {
  const { doc, finish } = pdfDocument('History report', input.reportId, input.generatedAt);

  titlePage(doc, input);
  doc.addPage();
  figures(doc, input.summary);
  const charts = [
    hitRateOverTime(input.summary),
    outcomesByType(input.summary),
    casesOverTime(input.summary),
    hitRateByType(input.summary),
  ];
  doc.addPage();
  heading(doc, 'Charts');
  for (const [index, spec] of charts.entries()) {
    if (index === 2) doc.addPage();
    await drawChart(doc, spec);
  }
  doc.addPage();
  const rowCount = await caseTable(doc, input.cases);
  return { content: await finish(), rowCount };
}

/** A new A4 document whose creation date is `generatedAt`; `finish` ends it and gives its bytes. */
export function pdfDocument(
  title: string,
  reportId: string,
  generatedAt: Date,
): { doc: PDFKit.PDFDocument; finish: () => Promise<Buffer> } {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    compress: true,
    info: {
      Title: title,
      Author: 'Session and Analysis Service',
      Subject: `Report ${reportId}`,
      CreationDate: generatedAt,
      ModDate: generatedAt,
    },
    lang: 'en',
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  return {
    doc,
    finish: async () => {
      doc.end();
      await ended;
      return Buffer.concat(chunks);
    },
  };
}

/** A chart drawn at the current position, vector, the width of the text. */
export async function drawChart(
  doc: PDFKit.PDFDocument,
  spec: Parameters<typeof chartSvg>[0],
): Promise<void> {
  const svg = await chartSvg(spec);
  if (doc.y + 320 > PAGE.height - MARGIN) doc.addPage();
  const y = doc.y + 10;
  SVGtoPDF(doc, svg, MARGIN, y, { assumePt: true, width: PAGE.width - 2 * MARGIN, height: 300 });
  doc.y = y + 320;
}

export function heading(doc: PDFKit.PDFDocument, text: string): void {
  doc.font(BOLD_FONT).fontSize(16).fillColor('black').text(text, MARGIN, doc.y);
  doc.moveDown(0.5);
}

function titlePage(doc: PDFKit.PDFDocument, input: HistoryPdfInput): void {
  doc.font(BOLD_FONT).fontSize(28).text('History report', MARGIN, 200);
  doc.moveDown();
  doc.font(FONT).fontSize(12);
  const p = input.parameters;
  const lines = [
    `Report ${input.reportId}`,
    `Generated ${input.generatedAt.toISOString()}`,
    `Mode: ${input.mode}`,
    `Cases dated from ${p.dateFrom ?? 'the first case'} to ${p.dateTo ?? 'the last case'}`,
    `Type: ${p.type ?? 'every type'}`,
    `Cases: ${input.summary.cases.toLocaleString('en')}`,
    '',
    'Classified cases are never included. Every rate is shown with its 95 % Wilson interval and the',
    'exact one-sided binomial p-value against its chance baseline: a hit rate counts verdict "hit"',
    'among the cases with any verdict.',
  ];
  for (const line of lines) doc.text(line);
}

function rateText(rate: Rate | null): string {
  if (rate === null) return 'no verified cases';
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  return `${pct(rate.value)} (${rate.successes} of ${rate.n}; 95 % CI ${pct(rate.ciLow)}–${pct(rate.ciHigh)}; chance ${pct(rate.baseline)}, p = ${rate.pValue.toPrecision(3)})`;
}

function figures(doc: PDFKit.PDFDocument, summary: HistorySummary): void {
  heading(doc, 'Figures');
  doc.font(FONT).fontSize(11);
  doc.text(`Cases: ${summary.cases.toLocaleString('en')}`);
  doc.text(`Hit rate: ${rateText(summary.hitRate)}`);
  doc.moveDown();
  table(
    doc,
    [
      { title: 'Type', width: 95 },
      { title: 'Cases', width: 45 },
      { title: 'Verified', width: 50 },
      { title: 'Hit rate (95 % CI; chance, p)', width: 305 },
    ],
    summary.byType.map((row) => [
      row.type,
      String(row.cases),
      String(row.verified),
      rateText(row.hitRate),
    ]),
  );
}

export interface Column {
  title: string;
  width: number;
}

/** Rows drawn one by one; a row that does not fit starts a new page with the header again. */
export function table(doc: PDFKit.PDFDocument, columns: Column[], rows: Iterable<string[]>): void {
  const header = () => {
    doc.font(BOLD_FONT).fontSize(9);
    drawRow(
      doc,
      columns,
      columns.map((c) => c.title),
    );
    doc.font(FONT).fontSize(9);
  };
  header();
  for (const row of rows) {
    const height = rowHeight(doc, columns, row);
    if (doc.y + height > PAGE.height - MARGIN) {
      doc.addPage();
      header();
    }
    drawRow(doc, columns, row, height);
  }
}

function rowHeight(doc: PDFKit.PDFDocument, columns: Column[], cells: string[]): number {
  return (
    Math.max(
      ...cells.map((cell, i) => doc.heightOfString(cell, { width: columns[i]!.width - 4 })),
    ) + 4
  );
}

function drawRow(
  doc: PDFKit.PDFDocument,
  columns: Column[],
  cells: string[],
  height = rowHeight(doc, columns, cells),
): void {
  const top = doc.y;
  let x = MARGIN;
  for (const [i, cell] of cells.entries()) {
    doc.text(cell, x + 2, top + 2, { width: columns[i]!.width - 4 });
    x += columns[i]!.width;
  }
  doc
    .moveTo(MARGIN, top + height)
    .lineTo(x, top + height)
    .lineWidth(0.3)
    .strokeColor('#999999')
    .stroke();
  doc.x = MARGIN;
  doc.y = top + height;
}

async function caseTable(
  doc: PDFKit.PDFDocument,
  cases: AsyncIterable<Record<string, unknown>>,
): Promise<number> {
  heading(doc, 'Cases');
  doc.font(FONT).fontSize(9);
  const rows: string[][] = [];
  for await (const row of cases) {
    if (rows.length >= PDF_CASE_ROWS) break;
    rows.push([
      String(row.date ?? '').slice(0, 10),
      String(row.type ?? ''),
      truncate(String(row.target ?? ''), 120),
      String(row.verdict ?? '—'),
      row.confidence_score === null || row.confidence_score === undefined
        ? '—'
        : Number(row.confidence_score).toFixed(2),
    ]);
  }
  doc.text(
    rows.length === PDF_CASE_ROWS
      ? `The newest ${PDF_CASE_ROWS.toLocaleString('en')} cases; the CSV and JSON reports list every case.`
      : `${rows.length} cases, newest first.`,
  );
  doc.moveDown(0.5);
  table(
    doc,
    [
      { title: 'Date', width: 65 },
      { title: 'Type', width: 90 },
      { title: 'Target', width: 230 },
      { title: 'Verdict', width: 55 },
      { title: 'Confidence', width: 55 },
    ],
    rows,
  );
  return rows.length;
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}
