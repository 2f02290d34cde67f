import { Column, Entity, ForeignKey, Index, PrimaryColumn, Unique } from 'typeorm';
import { JudgingTaskEntity } from './judging-task.entity.js';

/**
 * One analyst's trial of one judged task (migration 1764108000000): the rows
 * every track record is summed from. The organisation's, not a mode's: the
 * mode is its judging task's.
 */
@Entity({ name: 'judged_trials' })
@Unique('judged_trials_task_user_key', ['judgingTaskId', 'userId'])
@Index('judged_trials_user_idx', ['userId', 'workKind', 'modality'])
export class JudgedTrialEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @ForeignKey(() => JudgingTaskEntity, {
    name: 'judged_trials_judging_task_id_fkey',
    onDelete: 'CASCADE',
  })
  @Column({ name: 'judging_task_id', type: 'uuid' })
  judgingTaskId!: string;

  // `users` is libs/auth's table: named, not imported.
  @ForeignKey('users', { name: 'judged_trials_user_id_fkey', onDelete: 'CASCADE' })
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'work_kind', type: 'text' })
  workKind!: string;

  @Column({ type: 'text', nullable: true })
  modality!: string | null;

  @Column({ type: 'boolean' })
  hit!: boolean;

  @Column({ type: 'smallint' })
  rank!: number;

  @Column({ name: 'set_size', type: 'smallint' })
  setSize!: number;

  @Column({ name: 'saic_accuracy', type: 'double precision', nullable: true })
  saicAccuracy!: number | null;

  @Column({ name: 'saic_reliability', type: 'double precision', nullable: true })
  saicReliability!: number | null;

  @Column({ name: 'judged_at', type: 'timestamptz', default: () => 'now()' })
  judgedAt!: Date;
}
