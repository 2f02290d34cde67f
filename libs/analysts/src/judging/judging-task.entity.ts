import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import { TenantOwned } from '#database';
import { WorkTaskingEntity } from '../tasking/work-tasking.entity.js';
import type { JudgingTaskStatus, StoredCandidate } from './judging-task.js';

/** One judged piece of work, its candidates in the order the judge sees them (migration 1764108000000). */
@Entity({ name: 'judging_tasks' })
@Unique('judging_tasks_tasking_key', ['taskingId'])
@Check(
  'judging_tasks_status_check',
  `"status" IN ('awaiting_judge', 'pending', 'ranked', 'cancelled')`,
)
// (judge_user_id, created_at DESC, id DESC): TypeORM cannot declare a descending column.
@Index('judging_tasks_judge_idx', { synchronize: false })
export class JudgingTaskEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @ForeignKey(() => WorkTaskingEntity, {
    name: 'judging_tasks_tasking_id_fkey',
    onDelete: 'CASCADE',
  })
  @Column({ name: 'tasking_id', type: 'uuid' })
  taskingId!: string;

  // `users` is libs/auth's table: named, not imported.
  @ForeignKey('users', { name: 'judging_tasks_judge_user_id_fkey', onDelete: 'SET NULL' })
  @Column({ name: 'judge_user_id', type: 'uuid', nullable: true })
  judgeUserId!: string | null;

  @Column({ type: 'text' })
  status!: JudgingTaskStatus;

  @Column({ type: 'jsonb' })
  candidates!: StoredCandidate[];

  @Column({ name: 'true_candidate_id', type: 'uuid' })
  trueCandidateId!: string;

  @Column({ type: 'uuid', array: true, nullable: true })
  ranking!: string[] | null;

  @Column({ name: 'ranked_at', type: 'timestamptz', nullable: true })
  rankedAt!: Date | null;

  @Column({ name: 'event_sequence', type: 'integer', default: 0 })
  eventSequence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
