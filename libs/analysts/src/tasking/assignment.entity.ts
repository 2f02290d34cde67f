import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { TenantOwned } from '#database';
import type { AssignmentStatus } from './tasking.js';
import { WorkTaskingEntity } from './work-tasking.entity.js';

/**
 * One analyst on a tasking (migration 1764108000000); the submission lives
 * on it, amended in place until the deadline.
 */
@Entity({ name: 'assignments' })
@Unique('assignments_tasking_user_key', ['taskingId', 'userId'])
@Check(
  'assignments_status_check',
  `"status" IN ('assigned', 'submitted', 'declined', 'expired', 'completed', 'cancelled')`,
)
// (user_id, created_at DESC, id DESC): TypeORM cannot declare a descending column.
@Index('assignments_user_idx', { synchronize: false })
@Index('assignments_open_user_idx', ['userId'], {
  where: `"status" IN ('assigned', 'submitted')`,
})
export class AssignmentEntity extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @ForeignKey(() => WorkTaskingEntity, { name: 'assignments_tasking_id_fkey', onDelete: 'CASCADE' })
  @Column({ name: 'tasking_id', type: 'uuid' })
  taskingId!: string;

  // `users` is libs/auth's table: named, not imported.
  @ForeignKey('users', { name: 'assignments_user_id_fkey', onDelete: 'CASCADE' })
  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  status!: AssignmentStatus;

  @Column({ type: 'timestamptz' })
  deadline!: Date;

  @Column({ type: 'text', array: true, nullable: true })
  descriptors!: string[] | null;

  @Column({ type: 'double precision', nullable: true })
  latitude!: number | null;

  @Column({ type: 'double precision', nullable: true })
  longitude!: number | null;

  @Column({ type: 'text', nullable: true })
  notes!: string | null;

  @Column({ type: 'double precision', nullable: true })
  confidence!: number | null;

  @Column({ name: 'submitted_at', type: 'timestamptz', nullable: true })
  submittedAt!: Date | null;

  @Column({ name: 'declined_at', type: 'timestamptz', nullable: true })
  declinedAt!: Date | null;

  @Column({ name: 'decline_reason', type: 'text', nullable: true })
  declineReason!: string | null;

  @Column({ name: 'event_sequence', type: 'integer', default: 0 })
  eventSequence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
