import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import type { Performance } from '#analytics';
import type { Tenant } from '#common';
import type { Transaction } from '#database';
import type { HistoryReadModelRepository, ReportedCase } from '#history';
import { csvOptions, neutralizeCell } from './csv-cells.js';
import { performanceReport } from './performance-report.js';
import { rateJson, type TabularReport } from './tabular-report.js';
import { usageReport } from './usage-report.js';
import {
  HISTORY_REPORT_COLUMNS,
  historyReportRow,
  historySummary,
  streamHistoryCases,
} from './history-report.js';
import type { ReportFormat, ReportParameters, ReportType } from './report.js';

/** Where a report's document goes as it is built, piece by piece (a large object, in the worker). */
export interface ReportSink {
  write(chunk: Buffer): Promise<void>;
}

export interface BuiltReport {
  rowCount: number;
}

/** What reports are built from: the history's cases, and figures other libs compute (asked for only by the reports that show them). */
export interface ReportSources {
  cases: HistoryReadModelRepository;
  performance: () => Promise<Performance>;
}

export interface ReportRequest {
  id: string;
  reportType: ReportType;
  format: ReportFormat;
  parameters: ReportParameters;
  /** The instant the report states as its creation (fixed in tests). */
  generatedAt: Date;
}

/**
 * Builds one report's document on `snapshot`, a read-only REPEATABLE READ
 * transaction, so the summary and the rows are one snapshot.
 */
export async function buildReport(
  snapshot: Transaction,
  tenant: Tenant,
  request: ReportRequest,
  sources: ReportSources,
  sink: ReportSink,
): Promise<BuiltReport> {
  if (request.reportType === 'performance') {
    return tabular(performanceReport(await sources.performance()), tenant, request, sink);
  }
  if (request.reportType === 'usage') {
    const usage = await usageReport(sources.cases, snapshot, tenant, request.parameters);
    return tabular(usage, tenant, request, sink);
  }
  switch (request.format) {
    case 'csv':
      return historyCsv(sources.cases, snapshot, tenant, request.parameters, sink);
    case 'json':
      return historyJson(sources.cases, snapshot, tenant, request, sink);
    case 'pdf':
      return historyPdfReport(sources.cases, snapshot, tenant, request, sink);
  }
}

/**
 * RFC 4180 (CRLF line ends, quoted where needed, a header row), one row per
 * case: the cursor feeds csv-stringify through back-pressured streams, so a
 * million cases take the memory of one batch plus the finished document.
 */
async function historyCsv(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  parameters: ReportParameters,
  sink: ReportSink,
): Promise<BuiltReport> {
  let rowCount = 0;
  await pipeline(
    Readable.from(streamHistoryCases(cases, snapshot, tenant, parameters)),
    new Transform({
      objectMode: true,
      transform(row: ReportedCase, _encoding, done) {
        rowCount += 1;
        const shown = historyReportRow(row);
        done(
          null,
          HISTORY_REPORT_COLUMNS.map((column) => neutralizeCell(shown[column])),
        );
      },
    }),
    stringify(csvOptions(HISTORY_REPORT_COLUMNS)),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        sink.write(chunk).then(() => done(), done);
      },
    }),
  );
  return { rowCount };
}

/**
 * The PDF renderers, loaded on the first PDF: vega, vega-lite and pdfkit hold about 15 MB of heap,
 * which every process importing `#reports` (the API too, which never renders) would otherwise
 * carry, and mark on every full garbage collection.
 */
async function pdfRendering() {
  const [{ historyPdf }, { tabularPdf }] = await Promise.all([
    import('./pdf/history-pdf.js'),
    import('./pdf/tabular-pdf.js'),
  ]);
  return { historyPdf, tabularPdf };
}

/** The PDF: figures, four charts and the newest cases (pdf/history-pdf.ts). */
async function historyPdfReport(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  request: ReportRequest,
  sink: ReportSink,
): Promise<BuiltReport> {
  const summary = await historySummary(cases, snapshot, tenant, request.parameters);
  async function* shown() {
    for await (const row of streamHistoryCases(cases, snapshot, tenant, request.parameters)) {
      yield historyReportRow(row);
    }
  }
  const { historyPdf } = await pdfRendering();
  const { content, rowCount } = await historyPdf({
    reportId: request.id,
    generatedAt: request.generatedAt,
    mode: tenant.mode,
    parameters: request.parameters,
    summary,
    cases: shown(),
  });
  await sink.write(content);
  return { rowCount };
}

/** The same cases as the CSV, with the summary's counts and hit rates first. */
async function historyJson(
  cases: HistoryReadModelRepository,
  snapshot: Transaction,
  tenant: Tenant,
  request: ReportRequest,
  sink: ReportSink,
): Promise<BuiltReport> {
  const summary = await historySummary(cases, snapshot, tenant, request.parameters);
  const head = {
    report_id: request.id,
    report_type: request.reportType,
    generated_at: request.generatedAt.toISOString(),
    parameters: {
      date_from: request.parameters.dateFrom,
      date_to: request.parameters.dateTo,
      type: request.parameters.type,
    },
    summary: {
      cases: summary.cases,
      hit_rate: rateJson(summary.hitRate),
      by_type: summary.byType.map((row) => ({
        type: row.type,
        cases: row.cases,
        verified: row.verified,
        hit_rate: rateJson(row.hitRate),
      })),
    },
  };
  const opening = JSON.stringify(head, null, 2).replace(/\n}$/, ',\n  "cases": [');
  await sink.write(Buffer.from(opening));
  let rowCount = 0;
  for await (const row of streamHistoryCases(cases, snapshot, tenant, request.parameters)) {
    await sink.write(
      Buffer.from(`${rowCount === 0 ? '\n' : ',\n'}    ${JSON.stringify(historyReportRow(row))}`),
    );
    rowCount += 1;
  }
  await sink.write(Buffer.from(rowCount === 0 ? ']\n}\n' : '\n  ]\n}\n'));
  return { rowCount };
}

/** A performance or usage report in the asked format: JSON, its main table as CSV, or a PDF. */
async function tabular(
  report: TabularReport,
  tenant: Tenant,
  request: ReportRequest,
  sink: ReportSink,
): Promise<BuiltReport> {
  const rowCount = report.main.rows.length;
  switch (request.format) {
    case 'json': {
      const document = { ...header(request), ...report.json };
      await sink.write(Buffer.from(`${JSON.stringify(document, null, 2)}\n`));
      return { rowCount };
    }
    case 'csv': {
      const csv = stringifySync(
        report.main.rows.map((row) => row.map((cell) => neutralizeCell(cell))),
        csvOptions(report.main.columns),
      );
      await sink.write(Buffer.from(csv));
      return { rowCount };
    }
    case 'pdf': {
      const p = request.parameters;
      const range = `Cases dated from ${p.dateFrom ?? 'the first case'} to ${p.dateTo ?? 'the last case'}${p.type ? `, type ${p.type}` : ''}`;
      const { tabularPdf } = await pdfRendering();
      const content = await tabularPdf(report, {
        reportId: request.id,
        generatedAt: request.generatedAt,
        mode: tenant.mode,
        range: request.reportType === 'performance' ? 'Every case of the history' : range,
      });
      await sink.write(content);
      return { rowCount };
    }
  }
}

function header(request: ReportRequest): Record<string, unknown> {
  return {
    report_id: request.id,
    report_type: request.reportType,
    generated_at: request.generatedAt.toISOString(),
    parameters: {
      date_from: request.parameters.dateFrom,
      date_to: request.parameters.dateTo,
      type: request.parameters.type,
    },
  };
}
