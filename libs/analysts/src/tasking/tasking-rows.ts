import type { Mode } from '#common';
import type {
  Assignment,
  AssignmentStatus,
  SubmittedSketch,
  TaskedKind,
  Tasking,
} from './tasking.js';

export interface TaskingRow {
  id: string;
  organization_id: string;
  mode: Mode;
  work_kind: TaskedKind;
  work_id: string;
  target_reference_number: string;
  target: string | null;
  target_commitment: string;
  target_nonce: string;
  target_id: string | null;
  modality: string | null;
  question_type: string | null;
  duration_minutes: number;
  analyst_count: number;
  judging: boolean;
  decoy_count: number;
  deadline: Date;
  closed_at: Date | null;
  created_at: Date;
}

export const TASKING_COLUMNS = `t.id, t.organization_id, t.mode, t.work_kind, t.work_id,
  t.target_reference_number, t.target, t.target_commitment, t.target_nonce, t.target_id,
  t.modality, t.question_type, t.duration_minutes, t.analyst_count, t.judging, t.decoy_count,
  t.deadline, t.closed_at, t.created_at`;

export function taskingFromRow(row: TaskingRow): Tasking {
  return {
    id: row.id,
    organizationId: row.organization_id,
    mode: row.mode,
    kind: row.work_kind,
    workId: row.work_id,
    referenceNumber: row.target_reference_number,
    target: row.target,
    commitment: row.target_commitment,
    nonce: row.target_nonce,
    targetId: row.target_id,
    modality: row.modality,
    questionType: row.question_type,
    durationMinutes: row.duration_minutes,
    analystCount: row.analyst_count,
    judging: row.judging,
    decoyCount: row.decoy_count,
    deadline: row.deadline,
    closedAt: row.closed_at,
    createdAt: row.created_at,
  };
}

/** An assignment row joined with its tasking (columns of `t.` prefixed `t_`… avoided: see SELECT_ASSIGNMENTS). */
export interface AssignmentRow {
  a_id: string;
  a_user_id: string;
  a_status: AssignmentStatus;
  a_deadline: Date;
  a_descriptors: string[] | null;
  a_latitude: number | null;
  a_longitude: number | null;
  a_notes: string | null;
  a_confidence: number | null;
  a_submitted_at: Date | null;
  a_declined_at: Date | null;
  a_created_at: Date;
  a_updated_at: Date;
  a_event_sequence: number;
  a_sketches: SubmittedSketch[];
}

/** Assignments with their tasking and sketches; the caller adds `WHERE …`. */
export const SELECT_ASSIGNMENTS = `SELECT a.id AS a_id, a.user_id AS a_user_id, a.status AS a_status,
    a.deadline AS a_deadline, a.descriptors AS a_descriptors, a.latitude AS a_latitude,
    a.longitude AS a_longitude, a.notes AS a_notes, a.confidence AS a_confidence,
    a.submitted_at AS a_submitted_at, a.declined_at AS a_declined_at,
    a.created_at AS a_created_at, a.updated_at AS a_updated_at,
    a.event_sequence AS a_event_sequence,
    COALESCE((SELECT json_agg(json_build_object('id', s.id, 'contentType', s.content_type,
                'sha256', s.sha256, 'byteSize', octet_length(s.bytes)) ORDER BY s.position)
                FROM assignment_sketches s WHERE s.assignment_id = a.id), '[]'::json) AS a_sketches,
    ${TASKING_COLUMNS}
  FROM assignments a JOIN work_taskings t ON t.id = a.tasking_id`;

export function assignmentFromRow(row: AssignmentRow & TaskingRow): Assignment {
  return {
    id: row.a_id,
    userId: row.a_user_id,
    status: row.a_status,
    deadline: row.a_deadline,
    descriptors: row.a_descriptors,
    latitude: row.a_latitude,
    longitude: row.a_longitude,
    notes: row.a_notes,
    confidence: row.a_confidence,
    submittedAt: row.a_submitted_at,
    declinedAt: row.a_declined_at,
    createdAt: row.a_created_at,
    updatedAt: row.a_updated_at,
    eventSequence: row.a_event_sequence,
    tasking: taskingFromRow(row),
    sketches: row.a_sketches,
  };
}
