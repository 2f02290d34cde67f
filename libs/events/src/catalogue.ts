/** Every event name of the spec (Events part); `*` in a subscription means all of them. */
export const EVENT_TYPES = [
  'session.created',
  'session.started',
  'session.completed',
  'session.failed',
  'session.progress_updated',
  'analysis.created',
  'analysis.started',
  'analysis.completed',
  'analysis.failed',
  'dowsing.query_created',
  'dowsing.query_completed',
  'dowsing.query_failed',
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
  target: string;
  status: 'completed';
  confidence_score: number;
  duration_minutes: number;
  results: {
    coordinates: { latitude: number; longitude: number };
    descriptors: string[];
    sketches: string[];
  };
  completed_at: string;
}

/** Event name → data shape; producers and consumers share it. */
export interface EventDataMap {
  'session.created': SessionEventBase & { created_at: string; estimated_completion: string | null };
  'session.started': SessionEventBase & { started_at: string };
  'session.progress_updated': SessionEventBase & { progress: number; current_phase: string };
  'session.completed': SessionCompletedData;
  'session.failed': SessionEventBase & { reason: string; message: string; failed_at: string };
}

export type KnownEventType = keyof EventDataMap;
