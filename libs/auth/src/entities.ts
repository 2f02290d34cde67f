import { OAuthClientEntity } from './entities/oauth-client.entity.js';
import { UserEntity } from './entities/user.entity.js';
import { SigningKeyEntity } from './entities/signing-key.entity.js';
import { OidcPayloadEntity } from './entities/oidc-payload.entity.js';
import { ServerSecretEntity } from './entities/server-secret.entity.js';

/** The tables this lib owns: its module registers them, and the schema diff needs them all. */
export const AUTH_ENTITIES = [
  OAuthClientEntity,
  UserEntity,
  SigningKeyEntity,
  OidcPayloadEntity,
  ServerSecretEntity,
];
