export { TaskingModule } from './tasking.module.js';
export { SubmittedSketches } from './submitted-sketches.js';
export {
  AnalystWork,
  type CombiningInputs,
  pooledTrials,
  type PreparedTasking,
  progressStep,
  type TimedWorkPeople,
  type WorkPeople,
} from './analyst-work.js';
export {
  type AssignmentFilters,
  assignmentPublicId,
  AssignmentsService,
} from './assignments.service.js';
export { WorkTaskingEntity } from './work-tasking.entity.js';
export { AssignmentEntity } from './assignment.entity.js';
export { AssignmentSketchEntity } from './assignment-sketch.entity.js';
export { TaskingService } from './tasking.service.js';
export { workPublicId } from './assignment-events.js';
export * from './tasking.js';
export { commitTarget, targetCommitment, targetReferenceNumber } from './target-commitment.js';
export {
  combineSubmissions,
  type CombinedResults,
  OPEN_SEARCH_RADIUS_METERS,
  type RecordForResults,
  type SubmissionForResults,
} from './combine-submissions.js';
