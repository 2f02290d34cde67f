import type { TopLevelSpec } from 'vega-lite';

// What the charts share: the type of a spec builder, colours and the words and numbers their
// text alternatives and tables show (one formatting, so both say the same).

/** Builds a chart's Vega-Lite spec for the width it has, in CSS pixels. */
export type SpecFor = (width: number) => TopLevelSpec;

/** A single or layered chart filling `width` with its axes (not for facets). */
export const fitWidth = (width: number) => ({
  width,
  autosize: { type: 'fit-x' as const, contains: 'padding' as const },
});

/**
 * The x and y of counts stacked in bars over periods (hours, days): every
 * period of `domain` shown in order, whole numbers on the count axis.
 */
export function periodBars(
  period: { field: string; domain: string[]; title: string | null },
  count: { field: string; title: string },
) {
  return {
    x: {
      field: period.field,
      type: 'ordinal' as const,
      title: period.title,
      scale: { domain: period.domain },
      axis: { labelAngle: 0, labelOverlap: 'greedy' as const, labelSeparation: 6 },
    },
    y: {
      field: count.field,
      type: 'quantitative' as const,
      title: count.title,
      axis: { tickMinStep: 1, format: 'd' },
      stack: 'zero' as const,
    },
  };
}

export const BLUE = '#0b57d0';
export const RED = '#c62828';
export const GREEN = '#2e7d32';
export const AMBER = '#b26a00';
export const GREY = '#6d6d6d';

/** Colours of work statuses, by what they mean; any other status takes a colour of the scheme. */
const STATUS_COLOURS: Record<string, string> = {
  completed: GREEN,
  failed: RED,
  cancelled: GREY,
  in_progress: BLUE,
  processing: BLUE,
  queued: '#7986cb',
  initiated: '#7986cb',
};
const OTHER_COLOURS = ['#8e24aa', '#00838f', '#6d4c41', '#ad1457'];

/** A colour scale over the statuses present, each keeping its colour from chart to chart. */
export function statusScale(statuses: readonly string[]): { domain: string[]; range: string[] } {
  const domain = [...new Set(statuses)].sort();
  let other = 0;
  return {
    domain,
    range: domain.map(
      (status) => STATUS_COLOURS[status] ?? OTHER_COLOURS[other++ % OTHER_COLOURS.length]!,
    ),
  };
}

export const words = (value: string) => value.replaceAll('_', ' ');

export const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** A moment as a time of day, in the reader's zone. */
export const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** A moment as a day and month, in the reader's zone. */
export const dayMonth = (iso: string) =>
  new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
