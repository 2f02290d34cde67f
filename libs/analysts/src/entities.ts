import { JudgedTrialEntity } from './judging/judged-trial.entity.js';
import { JudgingTaskEntity } from './judging/judging-task.entity.js';
import { TargetPhotoEntity } from './targets/target-photo.entity.js';
import { TargetEntity } from './targets/target.entity.js';
import { AssignmentSketchEntity } from './tasking/assignment-sketch.entity.js';
import { AssignmentEntity } from './tasking/assignment.entity.js';
import { WorkTaskingEntity } from './tasking/work-tasking.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const ANALYST_ENTITIES: (new () => object)[] = [
  WorkTaskingEntity,
  AssignmentEntity,
  AssignmentSketchEntity,
  TargetEntity,
  TargetPhotoEntity,
  JudgingTaskEntity,
  JudgedTrialEntity,
];
