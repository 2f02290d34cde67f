export { JudgingModule, JudgingWorkModule } from './judging.module.js';
export { JudgingService } from './judging.service.js';
export {
  JudgingTasks,
  judgeCaller,
  servedType,
  type BlindSubmission,
  type JudgingTaskView,
  type ServedFile,
  type ShownCandidate,
} from './judging-tasks.js';
export { blindCandidates, type BlindCandidate } from './candidates.js';
export {
  JUDGING_TASK_STATUSES,
  WORK_KINDS,
  type JudgeCaller,
  type JudgedTruth,
  type JudgedWork,
  type JudgingTask,
  type JudgingTaskStatus,
  type StoredCandidate,
  type WorkKind,
} from './judging-task.js';
export { TrackRecords, type TrackRecordFilter } from './track-records.js';
export {
  DEFAULT_CHANCE,
  MIN_TRACK_RECORD_TRIALS,
  trackRecordOf,
  trackRecordSentence,
  type JudgedTrialGroup,
  type TrackRecord,
} from './track-record.js';
export { WaitingJudgingTasks } from './judge-assignment-task.js';
export { JudgingTaskEntity } from './judging-task.entity.js';
export { JudgedTrialEntity } from './judged-trial.entity.js';
