import { Injectable } from '@nestjs/common';
import SCIMMY from 'scimmy';
import { ScimGroups } from './scim-groups.js';
import { ScimUsers } from './scim-users.js';
import { asScimError, SCIM_BASE_PATH, ScimError } from './scim-protocol.js';
import type {
  ScimCaller,
  ScimContext,
  ScimFilter,
  ScimHandlers,
  ScimResourceHandlers,
} from './scim-context.js';

/** One SCIM request, as the HTTP layer read it. */
export interface ScimRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The first path segment under /scim/v2: `Users`, `Groups`, `Schemas`… */
  endpoint: string;
  id?: string;
  query: Record<string, unknown>;
  body?: unknown;
}

export interface ScimReply {
  status: number;
  body?: object;
  /** For a created resource. */
  location?: string;
}

/** Most resources one list answers with (ServiceProviderConfig `filter.maxResults`). */
export const SCIM_MAX_RESULTS = 200;

type ResourceClass = typeof SCIMMY.Resources.User | typeof SCIMMY.Resources.Group;

/** What declaring a resource's handlers takes, as this file uses it. */
interface DeclarableResource {
  basepath(path: string): unknown;
  ingress(
    handler: (
      target: { id?: string },
      instance: Record<string, unknown>,
      ctx: ScimContext,
    ) => Promise<object>,
  ): unknown;
  egress(
    handler: (
      target: { id?: string; filter?: ScimFilter },
      ctx: ScimContext,
    ) => Promise<object | object[]>,
  ): unknown;
  degress(handler: (target: { id?: string }, ctx: ScimContext) => Promise<void>): unknown;
}

let declared = false;

/**
 * scimmy keeps its configuration and resources per process: they are
 * declared once, with handlers that dispatch to the request's own
 * (`ScimContext.handlers`), so every application in the process serves its
 * own organisations whatever declared them.
 */
function declareResources(): void {
  if (declared) return;
  declared = true;
  SCIMMY.Config.set({
    documentationUri: 'https://github.com/sas/service#scim-provisioning',
    patch: { supported: true },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    bulk: { supported: false },
    sort: { supported: true },
    etag: { supported: false },
    changePassword: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM token',
        description:
          'Authorization: Bearer <token> with a token from POST /v2/enterprise/organizations/{organization_id}/scim-tokens',
      },
    ],
  });
  const dispatch = (
    resource: ResourceClass,
    pick: (handlers: ScimHandlers) => ScimResourceHandlers,
  ) => {
    const declarable = resource as unknown as DeclarableResource;
    declarable.basepath(SCIM_BASE_PATH);
    declarable.ingress((target, instance, ctx) =>
      guarded(ctx, () => pick(ctx.handlers).ingress(target.id, instance, ctx)),
    );
    declarable.egress((target, ctx) =>
      guarded(ctx, () => pick(ctx.handlers).egress(target.id, target.filter, ctx)),
    );
    declarable.degress((target, ctx) =>
      guarded(ctx, () => pick(ctx.handlers).degress(target.id!, ctx)),
    );
    return resource;
  };
  SCIMMY.Resources.declare(
    dispatch(SCIMMY.Resources.User, (handlers) => handlers.users).extend(
      SCIMMY.Schemas.EnterpriseUser,
      false,
    ) as typeof SCIMMY.Resources.User,
  );
  SCIMMY.Resources.declare(dispatch(SCIMMY.Resources.Group, (handlers) => handlers.groups));
}

/** Keeps an error that is not SCIM's for the HTTP layer, which scimmy would report as 404. */
async function guarded<T>(ctx: ScimContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (asScimError(error) === null) ctx.failure = error;
    throw error;
  }
}

/**
 * The SCIM 2.0 service provider (RFC 7644) of an organisation, on scimmy:
 * discovery (ServiceProviderConfig, ResourceTypes, Schemas), Users and
 * Groups with filters, paging, PUT and PatchOp.
 */
@Injectable()
export class ScimService {
  private readonly handlers: ScimHandlers;

  constructor(users: ScimUsers, groups: ScimGroups) {
    declareResources();
    this.handlers = { users, groups };
  }

  async handle(request: ScimRequest, caller: ScimCaller): Promise<ScimReply> {
    const ctx: ScimContext = { caller, handlers: this.handlers };
    try {
      return await this.dispatch(request, ctx);
    } catch (error) {
      if (ctx.failure !== undefined) throw ctx.failure;
      if (asScimError(error) !== null) throw error;
      // scimmy's own checks of what it was given (a filter it cannot parse, a body of the wrong shape).
      if (error instanceof TypeError) throw new ScimError(400, 'invalidValue', error.message);
      throw error;
    }
  }

  private async dispatch(request: ScimRequest, ctx: ScimContext): Promise<ScimReply> {
    const { method, endpoint, id } = request;
    switch (endpoint) {
      case 'ServiceProviderConfig':
        only(method, ['GET'], id === undefined);
        return { status: 200, body: await new SCIMMY.Resources.ServiceProviderConfig().read() };
      case 'ResourceTypes':
        only(method, ['GET'], true);
        return { status: 200, body: await new SCIMMY.Resources.ResourceType(id).read() };
      case 'Schemas':
        only(method, ['GET'], true);
        return { status: 200, body: await new SCIMMY.Resources.Schema(id).read() };
      case 'Users':
        return this.resource(SCIMMY.Resources.User, request, ctx);
      case 'Groups':
        return this.resource(SCIMMY.Resources.Group, request, ctx);
      default:
        throw new ScimError(404, null as unknown as string, `No SCIM endpoint /${endpoint}`);
    }
  }

  private async resource(
    type: ResourceClass,
    request: ScimRequest,
    ctx: ScimContext,
  ): Promise<ScimReply> {
    const { method, id } = request;
    only(method, ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], true);
    if (method === 'POST' && id !== undefined) {
      throw new ScimError(
        404,
        null as unknown as string,
        'POST creates at the collection, not a resource',
      );
    }
    if (method !== 'GET' && method !== 'POST' && id === undefined) {
      throw new ScimError(
        404,
        null as unknown as string,
        `${method} needs a resource id in the path`,
      );
    }
    const resource = new type(id, listParameters(request.query));
    switch (method) {
      case 'GET':
        return { status: 200, body: await resource.read(ctx) };
      case 'POST': {
        const created = (await resource.write(request.body, ctx)) as unknown as {
          meta?: { location?: string };
        };
        return { status: 201, body: created as object, location: created.meta?.location };
      }
      case 'PUT':
        return { status: 200, body: (await resource.write(request.body, ctx)) as object };
      case 'PATCH': {
        const patched = await resource.patch(normalisedPatch(request.body) as never, ctx);
        // A patch that changed nothing is answered with the resource as it stands.
        return { status: 200, body: (patched ?? (await new type(id).read(ctx))) as object };
      }
      case 'DELETE':
        await resource.dispose(ctx);
        return { status: 204 };
    }
  }
}

function only(method: string, allowed: string[], shape: boolean): void {
  if (!allowed.includes(method) || !shape) {
    throw new ScimError(404, null as unknown as string, `${method} is not served here`);
  }
}

/** The list parameters of RFC 7644 §3.4.2 a query carries, as scimmy takes them. */
function listParameters(query: Record<string, unknown>) {
  const text = (name: string) =>
    typeof query[name] === 'string' ? (query[name] as string) : undefined;
  const integer = (name: string, minimum: number, maximum: number) => {
    const raw = text(name);
    if (raw === undefined) return undefined;
    if (!/^-?\d{1,9}$/.test(raw))
      throw new ScimError(400, 'invalidValue', `${name} must be an integer`);
    return Math.min(Math.max(Number(raw), minimum), maximum);
  };
  const parameters: Record<string, unknown> = {};
  for (const name of ['filter', 'attributes', 'excludedAttributes', 'sortBy', 'sortOrder']) {
    if (text(name) !== undefined) parameters[name] = text(name);
  }
  const startIndex = integer('startIndex', 1, 1_000_000_000);
  const count = integer('count', 0, SCIM_MAX_RESULTS);
  if (startIndex !== undefined) parameters.startIndex = startIndex;
  parameters.count = count ?? SCIM_MAX_RESULTS;
  return parameters;
}

/**
 * A PatchOp as Entra ID sends it too: booleans as the strings "True" and
 * "False" (`{"op":"Replace","path":"active","value":"False"}`, or inside a
 * value without a path). RFC 7644 wants JSON booleans; the meaning is plain.
 */
function normalisedPatch(body: unknown): unknown {
  if (
    typeof body !== 'object' ||
    body === null ||
    !Array.isArray((body as { Operations?: unknown }).Operations)
  ) {
    return body;
  }
  const operations = (body as { Operations: unknown[] }).Operations.map((operation) => {
    if (typeof operation !== 'object' || operation === null) return operation;
    const { path, value } = operation as { path?: unknown; value?: unknown };
    // Entra ID removes members as {"op":"Remove","path":"members","value":[{"value":id}]}, which
    // RFC 7644 §3.5.2.2 reads as removing every member: it means those listed, so it says so.
    if (
      typeof path === 'string' &&
      path.toLowerCase() === 'members' &&
      String((operation as { op?: unknown }).op).toLowerCase() === 'remove' &&
      Array.isArray(value)
    ) {
      return value.map((member: { value?: unknown }) => ({
        op: 'remove',
        path: `members[value eq ${JSON.stringify(String(member?.value ?? ''))}]`,
      }));
    }
    if (typeof path === 'string' && path.toLowerCase() === 'active') {
      return { ...operation, value: booleanOf(value) };
    }
    if (path === undefined && typeof value === 'object' && value !== null && 'active' in value) {
      return {
        ...operation,
        value: { ...value, active: booleanOf((value as { active: unknown }).active) },
      };
    }
    return operation;
  });
  return { ...body, Operations: operations.flat() };
}

function booleanOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const lowered = value.toLowerCase();
  return lowered === 'true' ? true : lowered === 'false' ? false : value;
}
