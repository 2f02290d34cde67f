import type { EventDataMap, EventType } from './catalogue.js';

const AT = '2026-01-15T10:30:00.000Z';
const SESSION = { session_id: 'sess_01jh2x7v4ke8rbk3a8y0v0d7qz', type: 'remote_viewing' };
const ANALYSIS = { analysis_id: 'anal_01jh2x7v4ke8rbk3a8y0v0d7qz', target_type: 'location' };
const QUERY = {
  query_id: 'dowse_01jh2x7v4ke8rbk3a8y0v0d7qz',
  query_type: 'yes_no',
  variant: 'query',
};
const REPORT = {
  report_id: 'rpt_01jh2x7v4ke8rbk3a8y0v0d7qz',
  report_type: 'history',
  format: 'pdf',
};
const ASSIGNMENT = {
  assignment_id: 'asgmt_01jh2x7v4ke8rbk3a8y0v0d7qz',
  work_id: SESSION.session_id,
  kind: 'session' as const,
  analyst_id: 'analyst_01jh2x7v4ke8rbk3a8y0v0d7qz',
  target_reference_number: '4821-7305',
  deadline: '2026-01-15T11:30:00.000Z',
};
const JUDGING_TASK = {
  judging_task_id: 'jdg_01jh2x7v4ke8rbk3a8y0v0d7qz',
  work_id: SESSION.session_id,
  kind: 'session' as const,
  judge_id: 'analyst_01jh2x7v4ke8rbk3a8y0v0d7r0',
};
const ORGANIZATION = { organization_id: 'org_01jh2x7v4ke8rbk3a8y0v0d7qz' };
const NOTICE = {
  notice_id: 'notice_sample',
  title: 'Sample notice',
  message: 'A test delivery; nothing happened.',
  severity: 'info' as const,
  starts_at: AT,
  ends_at: null,
};

/**
 * Representative data of every event, for test deliveries (POST /webhooks/{id}/test)
 * and triggered events (POST /v2/events/trigger).
 */
const SAMPLES: { [T in EventType]: EventDataMap[T] } = {
  'session.created': {
    ...SESSION,
    status: 'initiated',
    created_at: AT,
    estimated_completion: AT,
    sequence: 1,
  },
  'session.started': { ...SESSION, status: 'in_progress', started_at: AT, sequence: 2 },
  'session.progress_updated': {
    ...SESSION,
    status: 'in_progress',
    progress: 50,
    current_phase: 'perception',
    sequence: 7,
  },
  'session.completed': {
    ...SESSION,
    target: 'Sample target',
    status: 'completed',
    confidence_score: 0.72,
    duration_minutes: 30,
    results: {
      coordinates: { latitude: 40.7128, longitude: -74.006 },
      descriptors: ['water', 'structure'],
      sketches: ['https://example.com/sketches/sample.svg'],
    },
    completed_at: AT,
    sequence: 13,
  },
  'session.failed': {
    ...SESSION,
    status: 'failed',
    reason: 'cancelled',
    message: 'The session was cancelled',
    failed_at: AT,
    sequence: 3,
  },
  'analysis.created': {
    ...ANALYSIS,
    status: 'queued',
    analysis_type: 'comprehensive',
    priority: 'medium',
    created_at: AT,
    estimated_completion: AT,
    sequence: 1,
  },
  'analysis.started': { ...ANALYSIS, status: 'processing', started_at: AT, sequence: 2 },
  'analysis.progress_updated': {
    ...ANALYSIS,
    status: 'processing',
    progress: 40,
    current_step: 'cross_referencing',
    sequence: 4,
  },
  'analysis.completed': {
    ...ANALYSIS,
    status: 'completed',
    confidence_score: 0.64,
    results: {
      summary: 'Sample summary',
      key_findings: ['Sample finding'],
      risk_assessment: { level: 'medium', factors: ['prior_only_evidence'] },
    },
    processing_time: '42 seconds',
    processing_time_ms: 42_000,
    completed_at: AT,
    sequence: 3,
  },
  'analysis.failed': {
    ...ANALYSIS,
    status: 'failed',
    reason: 'engine_failure',
    message: 'Sample failure',
    failed_at: AT,
    sequence: 3,
  },
  'dowsing.query_created': { ...QUERY, question: 'Is it here?', created_at: AT, sequence: 1 },
  'dowsing.query_completed': {
    ...QUERY,
    question: 'Is it here?',
    answer: 'positive',
    confidence: 0.35,
    coordinates: null,
    chart_data: {
      chart_type: 'pendulum',
      readings: [0.41, 0.72, 0.18],
      interpretation: 'Sample reading',
    },
    completed_at: AT,
    sequence: 2,
  },
  'dowsing.query_failed': {
    ...QUERY,
    reason: 'engine_failure',
    message: 'Sample failure',
    failed_at: AT,
    sequence: 2,
  },
  'history.outcome_verified': {
    case_id: 'hist_01jh2x7v4ke8rbk3a8y0v0d7qz',
    type: 'dowsing',
    source: { type: 'dowsing_query', id: QUERY.query_id },
    verdict: 'hit',
    location_found: true,
    independent_verification: true,
    accuracy_confirmed: false,
    verified_at: AT,
    corrected: false,
    sequence: 1,
  },
  'report.completed': {
    ...REPORT,
    status: 'completed',
    row_count: 1250,
    byte_size: 184_320,
    completed_at: AT,
    expires_at: '2026-02-14T10:30:00.000Z',
    sequence: 1,
  },
  'report.failed': {
    ...REPORT,
    status: 'failed',
    failure: 'the report could not be built',
    failed_at: AT,
    sequence: 1,
  },
  'assignment.created': {
    ...ASSIGNMENT,
    status: 'assigned',
    target_commitment: 'd2a84f4b8b650937ec8f73cd8be2c74add5a911ba64df27458ed8229da804a26',
    created_at: AT,
    sequence: 1,
  },
  'assignment.declined': { ...ASSIGNMENT, status: 'declined', declined_at: AT, sequence: 2 },
  'assignment.submitted': {
    ...ASSIGNMENT,
    status: 'submitted',
    submitted_at: AT,
    amended: false,
    sequence: 2,
  },
  'assignment.expired': { ...ASSIGNMENT, status: 'expired', expired_at: AT, sequence: 2 },
  'judging_task.created': {
    ...JUDGING_TASK,
    status: 'pending',
    candidate_count: 5,
    created_at: AT,
    sequence: 1,
  },
  'judging_task.ranked': {
    ...JUDGING_TASK,
    status: 'ranked',
    hit: true,
    true_rank: 1,
    candidate_count: 5,
    ranked_at: AT,
    sequence: 2,
  },
  'account.subscription_updated': {
    ...ORGANIZATION,
    plan: 'pro',
    previous_plan: 'free',
    tier: 'professional',
    previous_tier: 'basic',
    updated_at: AT,
    sequence: 1,
  },
  'account.usage_threshold_reached': {
    ...ORGANIZATION,
    quota: 'requests_per_hour',
    limit: 1000,
    used: 800,
    threshold_percent: 80,
    resets_at: AT,
    sequence: 1,
  },
  'account.payment_succeeded': {
    ...ORGANIZATION,
    payment_id: 'pay_sample',
    amount: 4900,
    currency: 'usd',
    paid_at: AT,
    sequence: 1,
  },
  'account.payment_failed': {
    ...ORGANIZATION,
    payment_id: 'pay_sample',
    amount: 4900,
    currency: 'usd',
    reason: 'card_declined',
    failed_at: AT,
    sequence: 1,
  },
  'system.maintenance_scheduled': { ...NOTICE, sequence: 1 },
  'system.service_disruption': { ...NOTICE, severity: 'warning', sequence: 1 },
  'system.security_alert': { ...NOTICE, severity: 'critical', sequence: 1 },
  'webhook.failed': {
    webhook_id: 'wh_01jh2x7v4ke8rbk3a8y0v0d7qz',
    url: 'https://example.com/hooks',
    delivery_id: 'dlv_01jh2x7v4ke8rbk3a8y0v0d7qz',
    event_id: 'evt_01jh2x7v4ke8rbk3a8y0v0d7qz',
    event_type: 'session.completed',
    attempts: 7,
    last_status_code: 500,
    last_error: 'the receiver answered 500',
    failed_at: AT,
    sequence: 1,
  },
};

export function sampleEventData(type: string): Record<string, unknown> {
  return { ...SAMPLES[type as EventType] };
}

/**
 * The data of a triggered event: the sample, marked `"test": true` (no event
 * of the catalogue has a `test` field), so receivers can tell it from real work.
 */
export function triggeredEventData<T extends EventType>(type: T): EventDataMap[T] & { test: true } {
  return { ...SAMPLES[type], test: true };
}

/** Whether stored event data is a triggered sample: nothing in the worker acts on one. */
export function isTriggeredSample(data: Record<string, unknown>): boolean {
  return data.test === true;
}
