import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import { AssignmentEntity } from './assignment.entity.js';

/** A sketch of a submission, checked and sanitised on upload (migration 1764108000000). */
@Entity({ name: 'assignment_sketches' })
@Unique('assignment_sketches_position_key', ['assignmentId', 'position'])
@Check(
  'assignment_sketches_content_type_check',
  `"content_type" IN ('image/png', 'image/jpeg', 'image/svg+xml')`,
)
export class AssignmentSketchEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @ForeignKey(() => AssignmentEntity, {
    name: 'assignment_sketches_assignment_id_fkey',
    onDelete: 'CASCADE',
  })
  @Column({ name: 'assignment_id', type: 'uuid' })
  assignmentId!: string;

  @Column({ type: 'smallint' })
  position!: number;

  @Column({ name: 'content_type', type: 'text' })
  contentType!: string;

  @Column({ type: 'bytea' })
  bytes!: Buffer;

  @Column({ type: 'text' })
  sha256!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
