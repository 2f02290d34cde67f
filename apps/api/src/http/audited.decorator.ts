import { applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { AuditAction } from '#events';

/**
 * The audit actions an operation records when it succeeds, published in the
 * OpenAPI document as `x-audit-actions`. test/audit-log.e2e-spec.ts walks the
 * document: every write to a security-relevant path must declare them, and
 * calling it must leave an audit event of one of them with its request id.
 */
export function Audited(...actions: [AuditAction, ...AuditAction[]]): MethodDecorator {
  return applyDecorators(ApiExtension('x-audit-actions', actions));
}
