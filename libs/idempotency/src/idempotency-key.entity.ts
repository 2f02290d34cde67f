import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Mode } from '#common';

/**
 * One `Idempotency-Key` of an organisation and mode (docs/architecture.md, "A request's path"): the caller
 * and request it was first used with (method, path and a hash of the body)
 * and, once that request succeeded, its response, sealed (it may hold a
 * one-time secret) and replayed to that caller only, for 24 hours.
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

  /** `api_key:key_01…` or `access_token:<sub>`: only this caller can replay the response. */
  @Column({ type: 'text' })
  caller!: string;

  /** `POST /v1/sessions`: the route the key was used on. */
  @Column({ type: 'text' })
  route!: string;

  /** Hex SHA-256 of the canonical JSON body. */
  @Column({ name: 'request_hash', type: 'text' })
  requestHash!: string;

  /** Null while the first request runs. */
  @Column({ name: 'response_status', type: 'smallint', nullable: true })
  responseStatus!: number | null;

  /** The response body's JSON, sealed with SIGNING_KEY_SECRET (purpose `idempotent-response`). */
  @Column({ name: 'response_sealed', type: 'text', nullable: true })
  responseSealed!: string | null;

  /** The request id of the first request. */
  @Column({ name: 'request_id', type: 'text' })
  requestId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
