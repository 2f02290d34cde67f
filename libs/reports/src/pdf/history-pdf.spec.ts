import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import { rateOf } from '#statistics';
import type { HistorySummary } from '../history-report.js';
import { historyPdf, PDF_CASE_ROWS, type HistoryPdfInput } from './history-pdf.js';

const SUMMARY: HistorySummary = {
  cases: 1500,
  hitRate: rateOf(40, 100, 0.25),
  byType: [
    {
      type: 'remote_viewing',
      cases: 1000,
      verified: 60,
      hits: 25,
      partials: 10,
      misses: 25,
      hitRate: rateOf(25, 60, 0.25),
    },
    {
      type: 'dowsing',
      cases: 500,
      verified: 40,
      hits: 15,
      partials: 5,
      misses: 20,
      hitRate: rateOf(15, 40, 0.5),
    },
  ],
  months: [
    { month: '2026-01', cases: 700, hitRate: rateOf(20, 50, 0.3) },
    { month: '2026-02', cases: 800, hitRate: rateOf(20, 50, 0.3) },
  ],
};

async function* cases(n: number) {
  for (let i = 0; i < n; i++) {
    yield {
      date: '2026-02-01T00:00:00.000Z',
      type: 'dowsing',
      target: `Target number ${i}`,
      verdict: i % 2 ? 'hit' : null,
      confidence_score: 0.5,
    };
  }
}

function input(n: number): HistoryPdfInput {
  return {
    reportId: 'rpt_01jx2k9v3sfd8tq4m7n6p5r2wz',
    generatedAt: new Date('2026-03-01T12:00:00Z'),
    mode: 'live',
    parameters: { dateFrom: '2026-01-01T00:00:00.000Z', dateTo: null, type: null },
    summary: SUMMARY,
    cases: cases(n),
  };
}

describe('historyPdf', () => {
  it('is a document with a title page, figures, charts and a table over many pages', async () => {
    const { content, rowCount } = await historyPdf(input(1500));
    expect(rowCount).toBe(PDF_CASE_ROWS);
    const pdf = await getDocumentProxy(new Uint8Array(content));
    expect(pdf.numPages).toBeGreaterThan(10);
    const { text } = await extractText(pdf, { mergePages: false });
    expect(text[0]).toContain('History report');
    expect(text[1]).toContain('Figures');
    expect(text[1]).toContain('40.0 % (40 of 100; 95 % CI');
    expect(text[2]).toContain('Hit rate over time');
    expect(text[2]).toContain('Outcomes by type');
    expect(text[3]).toContain('Cases per month');
    expect(text.at(-1)).toContain('Target number 999');
    // The table's header is repeated on every page it continues on.
    expect(text.slice(4).every((page) => page.includes('Verdict'))).toBe(true);
  });

  it('is byte-identical for the same input and creation date', async () => {
    const first = await historyPdf(input(20));
    const second = await historyPdf(input(20));
    expect(first.content.equals(second.content)).toBe(true);
  });
});
