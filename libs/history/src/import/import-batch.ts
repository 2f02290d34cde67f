import type { ImportTally } from './import-report.js';
import type { ImportedCase } from './import-row.js';

/** Rows written per statement: large enough that 100,000 rows are a hundred statements. */
export const IMPORT_BATCH_ROWS = 1000;

/**
 * Where an import's checked cases go: one statement each call, in the
 * import's transaction, under a savepoint (ImportedCasesRepository#upsertImported).
 * Tells, by external id, whether each case was new; a refused statement
 * leaves the transaction usable and throws.
 */
export type ImportedCaseWriter = (cases: readonly ImportedCase[]) => Promise<Map<string, boolean>>;

interface PendingRow {
  line: number;
  row: ImportedCase;
}

/**
 * Checked rows on their way into the import's transaction, a batch per
 * statement. Within a batch the later row of an external id wins (as it
 * would row by row) and each earlier one counts as an update. A batch the
 * database refuses for its data (SQLSTATE class 22 or 23, which the row
 * check should have made impossible) is written again row by row, each
 * statement under its own savepoint, so the report names the rows at fault
 * and the others are stored.
 */
export class ImportBatch {
  private pending: PendingRow[] = [];

  constructor(
    private readonly write: ImportedCaseWriter,
    private readonly tally: ImportTally,
  ) {}

  /** Adds a row; writes the batch once it is full. */
  async add(line: number, row: ImportedCase): Promise<void> {
    this.pending.push({ line, row });
    if (this.pending.length >= IMPORT_BATCH_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    if (pending.length === 0) return;
    const latest = new Map<string, ImportedCase>();
    const occurrences = new Map<string, number>();
    for (const { row } of pending) {
      latest.set(row.externalId, row);
      occurrences.set(row.externalId, (occurrences.get(row.externalId) ?? 0) + 1);
    }
    let inserted: Map<string, boolean>;
    try {
      inserted = await this.write([...latest.values()]);
    } catch (error) {
      if (!isDataError(error)) throw error;
      await this.rowByRow(pending);
      return;
    }
    for (const [externalId, count] of occurrences) {
      const isNew = inserted.get(externalId) === true;
      this.tally.imported += isNew ? 1 : 0;
      this.tally.updated += isNew ? count - 1 : count;
    }
  }

  private async rowByRow(pending: readonly PendingRow[]): Promise<void> {
    for (const { line, row } of pending) {
      try {
        const inserted = await this.write([row]);
        if (inserted.get(row.externalId) === true) this.tally.imported += 1;
        else this.tally.updated += 1;
      } catch (error) {
        if (!isDataError(error)) throw error;
        this.tally.fail(line, [
          {
            field: 'row',
            issue: `could not be stored (database error ${(error as { code: string }).code})`,
          },
        ]);
      }
    }
  }
}

/**
 * A statement refused for the data it was given (class 22, data exception;
 * 23, integrity constraint) — not a lost connection, a deadlock or a bug in
 * the statement, which end the import.
 */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}
