import type { ReportSink } from './report-builder.js';
import type { ReportsRepository } from './reports.repository.js';

/** Bytes gathered before each lo_put: few round trips, little memory. */
const PIECE_BYTES = 1024 * 1024;
/** A report's document at most (see the reports migration: beyond it, object storage). */
export const MAX_REPORT_BYTES = 1024 ** 3;

/**
 * Writes a document into a new PostgreSQL large object in 1 MB pieces
 * (each its own statement on the pool), so the worker never holds the
 * whole document. `discard` unlinks it when the report is not kept.
 */
export class LargeObjectSink implements ReportSink {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes written so far (the document's size once closed). */
  size = 0;

  private constructor(
    private readonly reports: ReportsRepository,
    readonly oid: number,
  ) {}

  static async create(reports: ReportsRepository): Promise<LargeObjectSink> {
    return new LargeObjectSink(reports, await reports.createDocument());
  }

  async write(chunk: Buffer): Promise<void> {
    if (this.size + this.pendingBytes + chunk.length > MAX_REPORT_BYTES) {
      throw new ReportTooLargeError();
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= PIECE_BYTES) await this.flush();
  }

  async close(): Promise<number> {
    await this.flush();
    return this.size;
  }

  async discard(): Promise<void> {
    await this.reports.unlinkDocument(this.oid).catch(() => undefined);
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const piece = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    await this.reports.writeDocument(this.oid, this.size, piece);
    this.size += piece.length;
  }
}

export class ReportTooLargeError extends Error {
  constructor() {
    super(`the document is larger than ${MAX_REPORT_BYTES} bytes`);
  }
}
