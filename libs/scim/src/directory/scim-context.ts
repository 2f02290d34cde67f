import type { Tenant } from '#common';
import type { AuditActor } from '#events';
import { ScimError } from './scim-protocol.js';

/** Who calls the SCIM service: an organisation's SCIM token. */
export interface ScimCaller {
  organizationId: string;
  /** The token's public id (`scim_…`), the actor of what it changes. */
  tokenId: string;
}

/**
 * What scimmy hands to every handler of one request. scimmy's resources are
 * declared once per process, so each request carries its caller, and the
 * handlers it dispatches to, here; `snapshot` is the resource as a PATCH read
 * it, so the write applies only what the patch changed; `failure` keeps an
 * error that is not SCIM's (a database outage), which scimmy would otherwise
 * report as "not found".
 */
export interface ScimContext {
  caller: ScimCaller;
  handlers: ScimHandlers;
  snapshot?: Record<string, unknown>;
  failure?: unknown;
}

/** A SCIM resource's handlers, as scimmy calls them. */
export interface ScimResourceHandlers {
  ingress(
    id: string | undefined,
    instance: Record<string, unknown>,
    ctx: ScimContext,
  ): Promise<object>;
  egress(
    id: string | undefined,
    filter: ScimFilter | undefined,
    ctx: ScimContext,
  ): Promise<object | object[]>;
  degress(id: string, ctx: ScimContext): Promise<void>;
}

export interface ScimHandlers {
  users: ScimResourceHandlers;
  groups: ScimResourceHandlers;
}

/** A parsed SCIM filter (scimmy's Filter): its expressions, and matching in memory. */
export interface ScimFilter extends ReadonlyArray<Record<string, unknown>> {
  match<T>(values: T[]): T[];
}

export function scimActor(caller: ScimCaller): AuditActor {
  return { type: 'scim_token', id: caller.tokenId };
}

/** The value of a filter that is exactly `<attribute> eq "<value>"`, else null. */
export function equalityOf(filter: ScimFilter | undefined, attribute: string): string | null {
  if (filter === undefined || filter.length !== 1) return null;
  const entries = Object.entries(filter[0]!);
  if (entries.length !== 1) return null;
  const [name, expression] = entries[0]!;
  if (name.toLowerCase() !== attribute.toLowerCase() || !Array.isArray(expression)) return null;
  const [operator, value] = expression as unknown[];
  return operator === 'eq' && typeof value === 'string' ? value : null;
}

/** People, groups and their audit events are the organisation's, in live mode. */
export function live(organizationId: string): Tenant {
  return { organizationId, mode: 'live' };
}

/** SCIM's 404 for a resource id that names nothing of the organisation's. */
export function notFound(id: string): ScimError {
  return new ScimError(404, null as unknown as string, `Resource ${id} not found`);
}
