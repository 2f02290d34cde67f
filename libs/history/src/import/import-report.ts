import type { FieldIssue } from './import-row.js';

/** Row errors one report lists; past it the counts go on and `errorsTruncated` says so. */
export const MAX_REPORTED_ERRORS = 1000;

export interface RowError extends FieldIssue {
  /** 1-based line of the row in the file (a CSV's header is line 1). */
  line: number;
}

/** What an import did, row by row. */
export interface ImportReport {
  /** New cases. */
  imported: number;
  /** Rows that updated a case: one imported before with the same external_id, or an earlier row of this file. */
  updated: number;
  /** Rows refused and skipped (each has one or more errors). */
  failed: number;
  /** The first MAX_REPORTED_ERRORS errors, in line order. */
  errors: RowError[];
  errorsTruncated: boolean;
  dryRun: boolean;
}

/** Counts rows and keeps the first errors. */
export class ImportTally {
  imported = 0;
  updated = 0;
  failed = 0;
  /** Data rows read, valid or not. */
  rows = 0;
  private readonly errors: RowError[] = [];
  private truncated = false;

  /** A refused row: counted once, each of its issues listed while there is room. */
  fail(line: number, issues: readonly FieldIssue[]): void {
    this.failed += 1;
    for (const { field, issue } of issues) {
      if (this.errors.length >= MAX_REPORTED_ERRORS) {
        this.truncated = true;
        return;
      }
      this.errors.push({ line, field, issue });
    }
  }

  report(dryRun: boolean): ImportReport {
    return {
      imported: this.imported,
      updated: this.updated,
      failed: this.failed,
      // Rows refused by the database come after those read before them; the list reads by line.
      errors: [...this.errors].sort((a, b) => a.line - b.line),
      errorsTruncated: this.truncated,
      dryRun,
    };
  }
}
