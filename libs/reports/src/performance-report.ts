import type { Performance } from '#analytics';
import {
  RATE_COLUMNS,
  rateCells,
  rateChart,
  rateJson,
  type Cell,
  type TabularReport,
} from './tabular-report.js';

/**
 * The performance report: what GET /v1/analytics/performance answers (the
 * analytics lib's HistoryAnalyticsService), per engine, analyst, type and
 * modality, as one table with a `dimension` column.
 */
export function performanceReport(performance: Performance): TabularReport {
  const columns = [
    'dimension',
    'group',
    'cases',
    'failed',
    ...RATE_COLUMNS,
    'accuracy',
    'reliability',
    'p50_seconds',
    'p90_seconds',
    'p99_seconds',
  ];
  const rows: Cell[][] = [
    ...performance.byEngine.map((e) => [
      'engine',
      `${e.kind}/${e.engine}`,
      e.work,
      e.failed,
      ...rateCells(e.hitRate),
      e.accuracy,
      e.reliability,
      e.processingSeconds?.p50 ?? null,
      e.processingSeconds?.p90 ?? null,
      e.processingSeconds?.p99 ?? null,
    ]),
    ...performance.byAnalyst.map((a) => group('analyst', a.analystId, a.cases, a.hitRate)),
    ...performance.byType.map((t) => group('type', t.type, t.cases, t.hitRate)),
    ...performance.byModality.map((m) =>
      group('modality', m.modality ?? '(none)', m.cases, m.hitRate),
    ),
  ];
  const main = { title: 'Performance by engine, analyst, type and modality', columns, rows };
  return {
    title: 'Performance report',
    notes: [
      'Per engine: the newest finished work of each kind (failures, hit rate over verified work, mean SAIC accuracy and reliability where sessions record them, processing-time percentiles).',
      'Per analyst, type and modality: every unclassified case of the history.',
      'Every hit rate counts verdict "hit" among cases with any verdict, with its 95 % Wilson interval and the exact binomial p-value against the chance baseline.',
    ],
    charts: [
      rateChart(
        'Hit rate by engine (95 % interval; red: chance)',
        'Engine',
        performance.byEngine.map((e) => ({ label: `${e.kind}/${e.engine}`, rate: e.hitRate })),
      ),
      rateChart(
        'Hit rate by type (95 % interval; red: chance)',
        'Type',
        performance.byType.map((t) => ({ label: t.type, rate: t.hitRate })),
      ),
    ],
    tables: [main],
    main,
    json: {
      by_engine: performance.byEngine.map((e) => ({
        kind: e.kind,
        engine: e.engine,
        work: e.work,
        failed: e.failed,
        hit_rate: rateJson(e.hitRate),
        accuracy: e.accuracy,
        reliability: e.reliability,
        scores_note: e.scoresNote,
        processing_seconds: e.processingSeconds,
      })),
      by_analyst: performance.byAnalyst.map((a) => ({
        analyst_id: a.analystId,
        cases: a.cases,
        outcomes: a.outcomes,
        hit_rate: rateJson(a.hitRate),
      })),
      by_type: performance.byType.map((t) => ({
        type: t.type,
        cases: t.cases,
        outcomes: t.outcomes,
        hit_rate: rateJson(t.hitRate),
      })),
      by_modality: performance.byModality.map((m) => ({
        modality: m.modality,
        cases: m.cases,
        outcomes: m.outcomes,
        hit_rate: rateJson(m.hitRate),
      })),
    },
  };
}

function group(
  dimension: string,
  name: string,
  cases: number,
  rate: Parameters<typeof rateCells>[0],
): Cell[] {
  return [dimension, name, cases, null, ...rateCells(rate), null, null, null, null, null];
}
