import type { TabularReport } from '../tabular-report.js';
import { BOLD_FONT, FONT } from './charts.js';
import { drawChart, heading, MARGIN, pdfDocument, table } from './history-pdf.js';

const TEXT_WIDTH = 495;

/** A performance or usage report as a PDF: title page, charts, then every table (continued across pages). */
export async function tabularPdf(
  report: TabularReport,
  meta: { reportId: string; generatedAt: Date; mode: string; range: string },
): Promise<Buffer> {
  const { doc, finish } = pdfDocument(report.title, meta.reportId, meta.generatedAt);
  doc.font(BOLD_FONT).fontSize(28).text(report.title, MARGIN, 200);
  doc.moveDown();
  doc.font(FONT).fontSize(12);
  for (const line of [
    `Report ${meta.reportId}`,
    `Generated ${meta.generatedAt.toISOString()}`,
    `Mode: ${meta.mode}`,
    meta.range,
    '',
    ...report.notes,
  ]) {
    doc.text(line, { width: TEXT_WIDTH });
  }
  doc.addPage();
  heading(doc, 'Charts');
  for (const spec of report.charts) await drawChart(doc, spec);
  for (const section of report.tables) {
    doc.addPage();
    heading(doc, section.title);
    const width = TEXT_WIDTH / section.columns.length;
    table(
      doc,
      section.columns.map((title) => ({ title: title.replaceAll('_', ' '), width })),
      section.rows.map((row) => row.map((cell) => (cell === null ? '—' : String(cell)))),
    );
  }
  return finish();
}
