/** Every resource belongs to an organisation and a mode; every credential carries both. */
export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];

export interface Tenant {
  /** Stored UUID of the organisation. */
  organizationId: string;
  mode: Mode;
}

export type CredentialKind = 'access_token' | 'api_key';

/** The authenticated caller of a request, whatever credential it used. */
export interface Principal extends Tenant {
  credential: CredentialKind;
  /** Stable subject: the OAuth client id or the API key id. */
  subject: string;
  scopes: readonly string[];
}
