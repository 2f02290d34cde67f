import { certificateToPem } from './certificate.js';

export interface ServiceProviderMetadataOptions {
  entityId: string;
  acsUrl: string;
  /** PEM: the certificate our AuthnRequests are signed with. */
  signingCertificate: string;
  /** PEM: the certificate an IdP encrypts assertions to, when we can decrypt them. */
  encryptionCertificate?: string;
}

const EMAIL_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** The encryption methods node-saml's xml-encryption can decrypt. */
const ENCRYPTION_METHODS = [
  'http://www.w3.org/2009/xmlenc11#aes256-gcm',
  'http://www.w3.org/2009/xmlenc11#aes128-gcm',
  'http://www.w3.org/2001/04/xmlenc#aes256-cbc',
  'http://www.w3.org/2001/04/xmlenc#aes128-cbc',
];

/**
 * Our SP metadata for an IdP administrator to import: signed AuthnRequests,
 * signed assertions wanted, an email NameID, one HTTP-POST ACS.
 * Written by hand rather than with node-saml's generator, which only marks
 * AuthnRequestsSigned when handed the private key.
 */
export function serviceProviderMetadata(options: ServiceProviderMetadataOptions): string {
  const keyDescriptor = (use: 'signing' | 'encryption', pem: string, extra = '') =>
    `    <md:KeyDescriptor use="${use}">
      <ds:KeyInfo>
        <ds:X509Data>
          <ds:X509Certificate>${base64Body(pem, 'sp_certificate')}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>${extra}
    </md:KeyDescriptor>
`;
  const encryption = options.encryptionCertificate
    ? keyDescriptor(
        'encryption',
        options.encryptionCertificate,
        ENCRYPTION_METHODS.map((m) => `\n      <md:EncryptionMethod Algorithm="${m}"/>`).join(''),
      )
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${escapeXml(options.entityId)}">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol" AuthnRequestsSigned="true" WantAssertionsSigned="true">
${keyDescriptor('signing', options.signingCertificate)}${encryption}    <md:NameIDFormat>${EMAIL_NAME_ID}</md:NameIDFormat>
    <md:AssertionConsumerService index="0" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeXml(options.acsUrl)}"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
`;
}

function base64Body(pem: string, field: string): string {
  return certificateToPem(pem, field)
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '');
}

function escapeXml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
