import SCIMMY from 'scimmy';

/** Where the SCIM service is served, under the public URL. */
export const SCIM_BASE_PATH = '/scim/v2';
export const SCIM_MEDIA_TYPE = 'application/scim+json';
/** Whether a request path is the SCIM service's. */
export function isScimPath(path: string): boolean {
  return path === SCIM_BASE_PATH || path.startsWith(`${SCIM_BASE_PATH}/`);
}

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A SCIM protocol error: its HTTP status and, where RFC 7644 §3.12 names one, its `scimType`. */
export const ScimError = SCIMMY.Types.Error;
export type ScimError = InstanceType<typeof SCIMMY.Types.Error>;

/** The SCIM error response of an error SCIM can name (RFC 7644 §3.12). */
export function scimErrorBody(status: number, detail: string, scimType?: string | null) {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  };
}

/** An error scimmy raised or a handler threw as one: status, scimType and detail. */
export function asScimError(
  error: unknown,
): { status: number; scimType: string | null; detail: string } | null {
  if (!(error instanceof SCIMMY.Types.Error)) return null;
  const raised = error as unknown as { status: number; scimType?: string; message: string };
  return {
    status: Number(raised.status),
    scimType: raised.scimType ?? null,
    detail: raised.message,
  };
}
