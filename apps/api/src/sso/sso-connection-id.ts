/** The connection id of the v2 connection routes and of the SAML endpoints alike. */
export const SSO_CONNECTION_ID = {
  example: 'sso_01jx2k9v3sfd8tq4m7n6p5r2wz',
  description: 'The SSO connection id',
};
