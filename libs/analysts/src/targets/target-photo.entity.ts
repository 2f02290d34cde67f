import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import type { TargetPhotoStatus, TargetPhotoType } from './target.js';
import { TargetEntity } from './target.entity.js';

/** A photo of a pool target, fetched when the target was added, or why not (migration 1764108000000). */
@Entity({ name: 'target_photos' })
@Unique('target_photos_position_key', ['targetId', 'position'])
@Check('target_photos_status_check', `"status" IN ('fetched', 'failed')`)
export class TargetPhotoEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @ForeignKey(() => TargetEntity, { name: 'target_photos_target_id_fkey', onDelete: 'CASCADE' })
  @Column({ name: 'target_id', type: 'uuid' })
  targetId!: string;

  @Column({ type: 'smallint' })
  position!: number;

  @Column({ name: 'source_url', type: 'text' })
  sourceUrl!: string;

  @Column({ type: 'text' })
  status!: TargetPhotoStatus;

  @Column({ name: 'content_type', type: 'text', nullable: true })
  contentType!: TargetPhotoType | null;

  @Column({ type: 'bytea', nullable: true })
  bytes!: Buffer | null;

  @Column({ type: 'integer', nullable: true })
  width!: number | null;

  @Column({ type: 'integer', nullable: true })
  height!: number | null;

  @Column({ type: 'text', nullable: true })
  failure!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
