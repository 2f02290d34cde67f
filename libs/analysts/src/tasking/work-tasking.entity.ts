import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import { TenantOwned } from '#database';
import type { TaskedKind } from './tasking.js';

/**
 * One piece of work given to people (migration 1764108000000): the committed
 * target, how many analysts, the deadline, and whether it is judged. Field
 * names are `Tasking`'s, so a row maps straight onto the domain object.
 */
@Entity({ name: 'work_taskings' })
@Unique('work_taskings_work_key', ['kind', 'workId'])
@Check('work_taskings_work_kind_check', `"work_kind" IN ('session', 'analysis', 'dowsing')`)
@Check('work_taskings_analyst_count_check', `"analyst_count" BETWEEN 1 AND 20`)
@Check('work_taskings_decoy_count_check', `"decoy_count" BETWEEN 1 AND 9`)
@Index('work_taskings_open_deadline_idx', ['deadline'], { where: '"closed_at" IS NULL' })
export class WorkTaskingEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'work_kind', type: 'text' })
  kind!: TaskedKind;

  @Column({ name: 'work_id', type: 'uuid' })
  workId!: string;

  @Column({ name: 'target_reference_number', type: 'text' })
  referenceNumber!: string;

  /** Null once the work is deleted. */
  @Column({ type: 'text', nullable: true })
  target!: string | null;

  /** SHA-256 of `{nonce}:{target}`. */
  @Column({ name: 'target_commitment', type: 'text' })
  commitment!: string;

  @Column({ name: 'target_nonce', type: 'text' })
  nonce!: string;

  @Column({ name: 'target_id', type: 'uuid', nullable: true })
  targetId!: string | null;

  @Column({ type: 'text', nullable: true })
  modality!: string | null;

  @Column({ name: 'question_type', type: 'text', nullable: true })
  questionType!: string | null;

  @Column({ name: 'duration_minutes', type: 'integer' })
  durationMinutes!: number;

  @Column({ name: 'analyst_count', type: 'smallint' })
  analystCount!: number;

  @Column({ type: 'boolean', default: false })
  judging!: boolean;

  @Column({ name: 'decoy_count', type: 'smallint', default: 4 })
  decoyCount!: number;

  @Column({ type: 'timestamptz' })
  deadline!: Date;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
