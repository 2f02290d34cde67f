import { Column, CreateDateColumn, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { TenantOwned } from '#database';

/**
 * The columns every kind of work's table has (sessions, analyses,
 * dowsing_queries): what the lifecycle reads and writes whatever the kind.
 * Each kind's entity adds its own columns and declares its indexes, the
 * partial one on `batch_id` too, since index names are per table.
 */
export abstract class WorkEntity<Status extends string> extends TenantOwned {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  status!: Status;

  @Column({ type: 'text' })
  engine!: string;

  @Column({ name: 'engine_version', type: 'text', nullable: true })
  engineVersion!: string | null;

  /** Seed of the simulated engine's run, so what it drew (a session's sketches) can be drawn again. */
  @Column({ name: 'engine_seed', type: 'text', nullable: true })
  engineSeed!: string | null;

  @Column({ type: 'text', nullable: true })
  evidence!: string | null;

  @Column({ name: 'failure_reason', type: 'text', nullable: true })
  failureReason!: string | null;

  /** Bumped by every event about this work, so receivers can drop stale ones. */
  @Column({ name: 'event_sequence', type: 'integer', default: 0 })
  eventSequence!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt!: Date | null;

  /** The batch it was created in, if any. */
  @Column({ name: 'batch_id', type: 'uuid', nullable: true })
  batchId!: string | null;
}
