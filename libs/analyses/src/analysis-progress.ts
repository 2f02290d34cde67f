import type { AnalysisEntity } from './entities/analysis.entity.js';

/** Percent of the plan's steps done (0 until the analysis starts, 100 once it completed). */
export function progressOf(analysis: Pick<AnalysisEntity, 'status' | 'steps' | 'stepsDone'>) {
  if (analysis.status === 'completed') return 100;
  const steps = analysis.steps?.length ?? 0;
  return steps === 0 ? 0 : Math.round((100 * Math.min(analysis.stepsDone, steps)) / steps);
}

/**
 * What the analysis is doing: `queued`, one of the plan's steps while it is
 * `processing` (ANALYSIS_STEPS), else its final status.
 */
export function currentStepOf(
  analysis: Pick<AnalysisEntity, 'status' | 'steps' | 'stepsDone'>,
): string {
  if (analysis.status !== 'processing') return analysis.status;
  const steps = analysis.steps ?? [];
  return steps[Math.min(analysis.stepsDone, steps.length - 1)] ?? 'processing';
}

/** A duration as people write it: "850 milliseconds", "4.2 seconds", "2 minutes 5 seconds", "1 hour 3 minutes". */
export function humanDuration(ms: number): string {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} milliseconds`;
  if (ms < 60_000) {
    const seconds = Math.round(ms / 100) / 10;
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const totalSeconds = Math.round(ms / 1_000);
  const hours = Math.floor(totalSeconds / 3_600);
  const minutes = Math.floor((totalSeconds % 3_600) / 60);
  const seconds = totalSeconds % 60;
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (hours > 0)
    return [unit(hours, 'hour'), minutes > 0 && unit(minutes, 'minute')].filter(Boolean).join(' ');
  return [unit(minutes, 'minute'), seconds > 0 && unit(seconds, 'second')]
    .filter(Boolean)
    .join(' ');
}
