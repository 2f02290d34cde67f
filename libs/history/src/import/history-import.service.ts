import { Injectable } from '@nestjs/common';
import { AppError, type Principal, type Tenant } from '#common';
import { AppSettings } from '#config';
import { Sql } from '#database';
import { AuditLog } from '#events';
import { csvRows } from './csv-rows.js';
import {
  bodyText,
  importTooLarge,
  importTooManyRows,
  MAX_IMPORT_ROWS,
  type ImportFormat,
  type SourceRow,
} from './import-body.js';
import { ImportBatch } from './import-batch.js';
import { ImportTally, type ImportReport } from './import-report.js';
import { checkImportRow } from './import-row.js';
import { ImportedCasesRepository } from './imported-cases.repository.js';
import { ndjsonRows } from './ndjson-rows.js';

export interface ImportRequest {
  format: ImportFormat;
  /** The body, read once as it arrives. */
  body: AsyncIterable<Uint8Array>;
  /** The size the client declared (Content-Length), if it did: too large is refused before reading. */
  declaredBytes: number | null;
  /** Check and count only: the same statements run, and are rolled back. */
  dryRun: boolean;
  /** Kept with the import's audit record, whose resource it names. */
  requestId: string;
}

/** Seconds a caller is asked to wait while another import of its organisation runs. */
const BUSY_RETRY_AFTER_SECONDS = 10;

/** Ends a dry run's transaction: everything it wrote is rolled back, its report stands. */
class DryRunDone extends Error {}

/**
 * Imports a team's earlier records as history cases (source `import`): up
 * to 100,000 rows of NDJSON or CSV, read as they arrive and written in
 * batches (import-batch.ts) inside one transaction, so an import is stored
 * whole or not at all — a body over a limit, unreadable text, a refused
 * header or a lost connection leaves nothing behind — while a row that fails
 * its check (import-row.ts) is reported by line and skipped. Re-importing an
 * external id updates its case (ImportedCasesRepository#upsertImported). One import per
 * organisation and mode runs at a time (an advisory lock): two at once would
 * wait on each other's rows, and their counts would depend on the race.
 */
@Injectable()
export class HistoryImportService {
  constructor(
    private readonly sql: Sql,
    private readonly cases: ImportedCasesRepository,
    private readonly settings: AppSettings,
  ) {}

  async import(principal: Principal, request: ImportRequest): Promise<ImportReport> {
    const tenant: Tenant = principal;
    const maxBytes = this.settings.historyImportMaxBytes;
    if (request.declaredBytes !== null && request.declaredBytes > maxBytes) {
      throw importTooLarge(maxBytes);
    }
    const tally = new ImportTally();
    try {
      await this.sql.transaction(async (tx) => {
        if (!(await this.cases.claimImport(tx, tenant))) throw importBusy();
        const batch = new ImportBatch(
          (cases) => this.cases.upsertImported(tx, tenant, cases),
          tally,
        );
        const now = new Date();
        for await (const source of readRows(request.format, bodyText(request.body, maxBytes))) {
          tally.rows += 1;
          if (tally.rows > MAX_IMPORT_ROWS) throw importTooManyRows();
          if ('issue' in source) {
            tally.fail(source.line, [source.issue]);
            continue;
          }
          const checked = checkImportRow(source.value, now);
          if (checked.ok) await batch.add(source.line, checked.row);
          else tally.fail(source.line, checked.issues);
        }
        await batch.flush();
        if (request.dryRun) throw new DryRunDone();
        // Who imported what, beside the cases it wrote (which carry no author of their own).
        await AuditLog.record(tx, principal, {
          action: 'history.imported',
          actor: principal,
          target: { type: 'history_import', id: request.requestId },
          details: {
            format: request.format,
            imported: tally.imported,
            updated: tally.updated,
            failed: tally.failed,
          },
        });
      });
    } catch (error) {
      if (!(error instanceof DryRunDone)) throw error;
    }
    return tally.report(request.dryRun);
  }
}

function readRows(format: ImportFormat, text: AsyncIterable<string>): AsyncIterable<SourceRow> {
  switch (format) {
    case 'ndjson':
      return ndjsonRows(text);
    case 'csv':
      return csvRows(text);
  }
}

function importBusy(): AppError {
  return new AppError(
    'CONFLICT',
    'Another history import of this organisation is still running',
    {
      field: 'body',
      issue: `one import per organisation and mode runs at a time: retry in ${BUSY_RETRY_AFTER_SECONDS} seconds`,
    },
    { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  );
}
