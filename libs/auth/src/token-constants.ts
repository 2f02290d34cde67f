/** Access tokens are RFC 9068 JWTs signed with ECDSA P-256; nothing else is accepted. */
export const SIGNING_ALGORITHM = 'ES256';
export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
