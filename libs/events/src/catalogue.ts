/** Every event name of the spec (Events part); `*` in a subscription means all of them. */
export const EVENT_TYPES = [
  'session.created',
  'session.started',
  'session.completed',
  'session.failed',
  'session.progress_updated',
  'analysis.created',
  'analysis.started',
  'analysis.progress_updated',
  'analysis.completed',
  'analysis.failed',
  'dowsing.query_created',
  'dowsing.query_completed',
  'dowsing.query_failed',
  'history.outcome_verified',
  'report.completed',
  'report.failed',
  'assignment.created',
  'assignment.declined',
  'assignment.submitted',
  'assignment.expired',
  'judging_task.created',
  'judging_task.ranked',
  'account.subscription_updated',
  'account.usage_threshold_reached',
  'account.payment_succeeded',
  'account.payment_failed',
  'system.maintenance_scheduled',
  'system.service_disruption',
  'system.security_alert',
  'webhook.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Reserved: in the catalogue (the spec names them), so webhooks subscribe to
 * them and test deliveries and `POST /v2/events/trigger` send samples, but
 * never sent, because the service takes no payments. They will be sent once
 * billing exists.
 */
export const RESERVED_EVENT_TYPES = [
  'account.payment_succeeded',
  'account.payment_failed',
] as const satisfies readonly EventType[];

/** How the OpenAPI document and docs/webhooks.md say it. */
export const RESERVED_EVENTS_NOTE =
  `Reserved: ${RESERVED_EVENT_TYPES.map((type) => `\`${type}\``).join(' and ')} are accepted in subscriptions ` +
  'but never sent, because the service has no billing; they will be sent once it does.';

/** Every event's data names its resource and carries that resource's event sequence number. */
interface Sequenced {
  sequence: number;
}

export interface SessionEventBase extends Sequenced {
  session_id: string;
  type: string;
  status: string;
}

export interface SessionCompletedData extends Sequenced {
  session_id: string;
  type: string;
  /** Absent for `classified` sessions, whose target is never sent anywhere. */
  target?: string;
  status: 'completed';
  confidence_score: number;
  duration_minutes: number;
  results: {
    /** Null only for analyst work in which nobody gave coordinates. */
    coordinates: { latitude: number; longitude: number } | null;
    descriptors: string[];
    sketches: string[];
  };
  completed_at: string;
}

export interface AnalysisEventBase extends Sequenced {
  analysis_id: string;
  target_type: string;
  status: string;
}

export interface AnalysisCompletedData extends Sequenced {
  analysis_id: string;
  target_type: string;
  status: 'completed';
  confidence_score: number;
  results: {
    summary: string;
    key_findings: string[];
    risk_assessment: { level: string; factors: string[] };
  };
  /** Human-readable, as GET /v1/analysis/{id}/results shows it ("2 minutes 5 seconds"). */
  processing_time: string;
  processing_time_ms: number;
  completed_at: string;
}

export interface DowsingEventBase extends Sequenced {
  query_id: string;
  query_type: string;
  /** Our addition: `query`, or which of the seven v1 variants asked it. */
  variant: string;
}

export interface DowsingQueryCompletedData extends DowsingEventBase {
  question: string;
  answer: string;
  confidence: number;
  /** Null unless the answer is a place. */
  coordinates: { latitude: number; longitude: number; accuracy_meters: number } | null;
  chart_data: { chart_type: string; readings: unknown[]; interpretation: string };
  completed_at: string;
}

/**
 * Our addition: what really happened was recorded on a history case (or
 * corrected: `corrected` is true and `sequence` counts the versions). The
 * target is never sent: a case may record classified work.
 */
export interface HistoryOutcomeVerifiedData extends Sequenced {
  case_id: string;
  type: string;
  /** The work the case records (`session`, `analysis`, `dowsing_query`), or null for an imported case. */
  source: { type: string; id: string } | null;
  verdict: 'hit' | 'partial' | 'miss';
  location_found: boolean | null;
  independent_verification: boolean;
  accuracy_confirmed: boolean;
  verified_at: string;
  corrected: boolean;
}

/** Our addition: a report the worker built (`report.completed`) or could not (`report.failed`). */
export interface ReportEventBase extends Sequenced {
  report_id: string;
  report_type: string;
  format: string;
}

/**
 * Our addition (issue 18): an analyst's assignment on a piece of work. Blind
 * like the assignment itself: the reference number and the commitment, never
 * the target, its material or who asked for the work.
 */
export interface AssignmentEventBase extends Sequenced {
  assignment_id: string;
  /** The session, analysis or dowsing query (`sess_…`, `anal_…`, `dowse_…`). */
  work_id: string;
  kind: 'session' | 'analysis' | 'dowsing';
  analyst_id: string;
  target_reference_number: string;
  status: string;
  deadline: string;
}

/** Our addition (issue 18): blind judging of a completed piece of work. */
export interface JudgingTaskEventBase extends Sequenced {
  judging_task_id: string;
  work_id: string;
  kind: 'session' | 'analysis' | 'dowsing';
  /** Null while no judge who did not work on it is free. */
  judge_id: string | null;
  status: string;
}

interface AccountEventBase extends Sequenced {
  organization_id: string;
}

/** An announcement by the operators (maintenance, disruption, security). */
export interface SystemNoticeData extends Sequenced {
  notice_id: string;
  title: string;
  message: string;
  severity: 'info' | 'warning' | 'critical';
  starts_at: string | null;
  ends_at: string | null;
}

export interface WebhookFailedData extends Sequenced {
  webhook_id: string;
  url: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  failed_at: string;
}

/** Event name → data shape; producers and consumers share it. */
export interface EventDataMap {
  'session.created': SessionEventBase & { created_at: string; estimated_completion: string | null };
  'session.started': SessionEventBase & { started_at: string };
  'session.progress_updated': SessionEventBase & { progress: number; current_phase: string };
  'session.completed': SessionCompletedData;
  'session.failed': SessionEventBase & { reason: string; message: string; failed_at: string };
  'analysis.created': AnalysisEventBase & {
    analysis_type: string;
    priority: string;
    created_at: string;
    estimated_completion: string | null;
  };
  'analysis.started': AnalysisEventBase & { started_at: string };
  /** Our addition: one per step of the engine's plan, as `session.progress_updated` is per 10 %. */
  'analysis.progress_updated': AnalysisEventBase & { progress: number; current_step: string };
  'analysis.completed': AnalysisCompletedData;
  'analysis.failed': AnalysisEventBase & { reason: string; message: string; failed_at: string };
  'dowsing.query_created': DowsingEventBase & { question: string; created_at: string };
  'dowsing.query_completed': DowsingQueryCompletedData;
  'dowsing.query_failed': DowsingEventBase & { reason: string; message: string; failed_at: string };
  'history.outcome_verified': HistoryOutcomeVerifiedData;
  'report.completed': ReportEventBase & {
    status: 'completed';
    row_count: number;
    byte_size: number;
    completed_at: string;
    expires_at: string;
  };
  'report.failed': ReportEventBase & { status: 'failed'; failure: string; failed_at: string };
  'assignment.created': AssignmentEventBase & { target_commitment: string; created_at: string };
  'assignment.declined': AssignmentEventBase & { declined_at: string };
  /** `amended`: the analyst replaced an earlier submission (allowed until the deadline). */
  'assignment.submitted': AssignmentEventBase & { submitted_at: string; amended: boolean };
  'assignment.expired': AssignmentEventBase & { expired_at: string };
  'judging_task.created': JudgingTaskEventBase & { candidate_count: number; created_at: string };
  /** `hit`: the judge ranked the true target first; `true_rank` is where they put it (1 = best). */
  'judging_task.ranked': JudgingTaskEventBase & {
    hit: boolean;
    true_rank: number;
    candidate_count: number;
    ranked_at: string;
  };
  'account.subscription_updated': AccountEventBase & {
    plan: string;
    previous_plan: string;
    tier: string;
    previous_tier: string;
    updated_at: string;
  };
  'account.usage_threshold_reached': AccountEventBase & {
    quota: string;
    limit: number;
    used: number;
    threshold_percent: number;
    resets_at: string;
  };
  'account.payment_succeeded': AccountEventBase & {
    payment_id: string;
    amount: number;
    currency: string;
    paid_at: string;
  };
  'account.payment_failed': AccountEventBase & {
    payment_id: string;
    amount: number;
    currency: string;
    reason: string;
    failed_at: string;
  };
  'system.maintenance_scheduled': SystemNoticeData;
  'system.service_disruption': SystemNoticeData;
  'system.security_alert': SystemNoticeData;
  'webhook.failed': WebhookFailedData;
}

export type KnownEventType = keyof EventDataMap;

/** Compile-time check that the data map covers the whole catalogue and nothing else. */
type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const CATALOGUE_IS_COMPLETE: Exact<KnownEventType, EventType> = true;
