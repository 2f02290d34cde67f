import type { Mode } from '#common';

/** What people are tasked with: a session, a target analysis or a dowsing query. */
export const TASKED_KINDS = ['session', 'analysis', 'dowsing'] as const;
export type TaskedKind = (typeof TASKED_KINDS)[number];

/** The most analysts one piece of work can be given to. */
export const MAX_TASKED_ANALYSTS = 20;
/** Decoys beside the true target in a judging set, unless the work says otherwise. */
export const DEFAULT_DECOY_COUNT = 4;
export const MAX_DECOY_COUNT = 9;

/** How a piece of work asks to be done by people (the create request's fields). */
export interface TaskingRequest {
  kind: TaskedKind;
  /** Stored UUID and public id of the work. */
  workId: string;
  workPublicId: string;
  /** What the analysts must not see: committed to now, revealed when the work is done. */
  target: string;
  modality: string | null;
  /** The work's type as the analyst may know it (`remote_viewing`, `location`, `yes_no`, …). */
  questionType: string | null;
  durationMinutes: number;
  analystCount: number;
  /** Public `analyst_…` ids the caller wants on it; the rest are picked. */
  analystIds?: readonly string[] | undefined;
  judging: boolean;
  decoyCount: number;
  /** A pool target the work is about (its descriptors and photos are the judging truth). */
  targetId: string | null;
}

export interface Tasking {
  id: string;
  organizationId: string;
  mode: Mode;
  kind: TaskedKind;
  workId: string;
  referenceNumber: string;
  /** Null once the work is deleted. */
  target: string | null;
  commitment: string;
  nonce: string;
  targetId: string | null;
  modality: string | null;
  questionType: string | null;
  durationMinutes: number;
  analystCount: number;
  judging: boolean;
  decoyCount: number;
  deadline: Date;
  /** When the work stopped taking submissions (completed, failed or cancelled). */
  closedAt: Date | null;
  createdAt: Date;
}

export const ASSIGNMENT_STATUSES = [
  'assigned',
  'submitted',
  'declined',
  'expired',
  'completed',
  'cancelled',
] as const;
export type AssignmentStatus = (typeof ASSIGNMENT_STATUSES)[number];

export interface SubmittedSketch {
  id: string;
  contentType: string;
  sha256: string;
  byteSize: number;
}

/** One analyst's assignment with its tasking, as the analyst (and the service) reads it. */
export interface Assignment {
  id: string;
  userId: string;
  status: AssignmentStatus;
  deadline: Date;
  descriptors: string[] | null;
  latitude: number | null;
  longitude: number | null;
  notes: string | null;
  confidence: number | null;
  submittedAt: Date | null;
  declinedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  eventSequence: number;
  tasking: Tasking;
  sketches: SubmittedSketch[];
}

/** An analyst's submission as the results endpoints take it. */
export interface SubmissionInput {
  descriptors: string[];
  coordinates: { latitude: number; longitude: number } | null;
  notes: string | null;
  confidence: number | null;
  /** Checked and sanitised (prepareSketch); undefined keeps an earlier submission's sketches. */
  sketches?: { contentType: string; bytes: Buffer; sha256: string }[] | undefined;
}

/** Where a piece of work stands after a submission: the analysts still on it, and how many have submitted. */
export interface SubmissionProgress {
  tasking: Tasking;
  assignment: Assignment;
  amended: boolean;
  submitted: number;
  active: number;
}
