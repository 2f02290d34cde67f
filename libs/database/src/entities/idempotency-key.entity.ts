import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';
import type { JsonObject } from './json.js';

/**
 * One `Idempotency-Key` of an organisation and mode (DESIGN §4): the request
 * it was first used with (method, path and a hash of the body) and, once
 * that request succeeded, its response, replayed for 24 hours.
 */
@Entity({ name: 'idempotency_keys' })
@Index('idempotency_keys_expires_idx', ['expiresAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'uuid' })
  organizationId!: string;

  @PrimaryColumn({ type: 'text' })
  mode!: Mode;

  @PrimaryColumn({ type: 'text' })
  key!: string;

  /** `POST /v1/sessions`: the route the key was used on. */
  @Column({ type: 'text' })
  route!: string;

  /** Hex SHA-256 of the canonical JSON body. */
  @Column({ name: 'request_hash', type: 'text' })
  requestHash!: string;

  /** Null while the first request runs. */
  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody!: JsonObject | null;

  /** The request id of the first request. */
  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
