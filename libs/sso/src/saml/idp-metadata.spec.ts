import { describe, expect, it } from 'vitest';
import { SamlConfigError } from './errors.js';
import { parseIdpMetadata } from './idp-metadata.js';

/** A self-signed certificate (CN=unit-test-idp); its key was thrown away. */
const CERTIFICATE =
  'MIIDEzCCAfugAwIBAgIUeqCxq3vkKzLTcCa08zuU4vakApEwDQYJKoZIhvcNAQELBQAwGDEWMBQGA1UEAwwNdW5pdC10ZXN0LWlkcDAgFw0yNjExMjQwODA3MTFaGA8yMTI2MTAzMTA4MDcxMVowGDEWMBQGA1UEAwwNdW5pdC10ZXN0LWlkcDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBAL/TxVv5vni9NagXNaL7dRKS1ypeVwME5CuQqUuFtRaWkT0c9oAlNzsAf0Ysar5FDRh+7YMhmvVKRMantyW5bUIvUqIBhFTEwXdBoEsWuO8nbH6YJzv+847gTWfeazz/JI3vA/Qsfnj7rIzczwnAlcbh2Uc5fpIjvYoW5UHqmreLVCARaVBP/bRXKimj5APUOS4+57CxxmbSikXbkQ4FiJh0fcclslHGTkUD0aR3LD6XKMPLbDBiGd9+PBjnllNGFOvbRHhASlyaqlfmuPrl6dHrnq/1FaHLGjPQNEq9EDfagilYu4B64EP58ycT0FLwRQPqAi4zVguoUeluD7SA5kkCAwEAAaNTMFEwHQYDVR0OBBYEFKrO9N0vWEMiXZmz6qcWJWXBld4LMB8GA1UdIwQYMBaAFKrO9N0vWEMiXZmz6qcWJWXBld4LMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBAGD14hYFYEzaD4oYKOOzOfgXgyo2ARigFQsLY18yxT1j9hz+5qadP5d1U1LlHCfBTOSgOkxaXDcJ/dlAcoUedhJ1Dwr7//wVKFmbwgIfR0ny9rGxMNfeXkyZhwRu1xUVGBh8mZ4GbQccubK27j5x+ujJp0gIkwF6zBdBnv/1RWzYsPs5ZP+Gw6OdSTIhxPEyeu0zee3OhfEcIST5lxhYrKfM0rlQ80bww07Vl5/qxaMOovKqlz/eAtsdH0zOGCfCS+PQt0mnsXO8l7PS+NlJPSJMm/RoTsz5nMKKrPjYDIJOWmsWowwZOaVcCWcB2RYL8bZFhA7mzn2eEGV0l0FCmpA=';

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

function metadata(options: { idp?: string; keys?: string; services?: string } = {}): string {
  const keys =
    options.keys ??
    `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${CERTIFICATE}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
  const services =
    options.services ??
    `<md:SingleSignOnService Binding="${POST}" Location="https://idp.test/sso/post"/>` +
      `<md:SingleSignOnService Binding="${REDIRECT}" Location="https://idp.test/sso/redirect"/>`;
  return (
    '<?xml version="1.0"?>' +
    '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.test/entity">' +
    (options.idp ??
      `<md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keys}${services}</md:IDPSSODescriptor>`) +
    '</md:EntityDescriptor>'
  );
}

function issueOf(xml: string): string {
  try {
    parseIdpMetadata(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(SamlConfigError);
    expect((error as SamlConfigError).field).toBe('idp_metadata_xml');
    return (error as SamlConfigError).issue;
  }
  throw new Error('the metadata was accepted');
}

describe('parseIdpMetadata', () => {
  it('reads the entity id, the redirect SSO URL over the POST one, and the signing certificate', () => {
    const parsed = parseIdpMetadata(metadata());
    expect(parsed).toMatchObject({
      entityId: 'https://idp.test/entity',
      ssoUrl: 'https://idp.test/sso/redirect',
      ssoBinding: 'redirect',
      wantAuthnRequestsSigned: true,
    });
    expect(parsed.certificates).toHaveLength(1);
    expect(parsed.certificates[0]).toMatch(
      /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/,
    );
  });

  it('falls back to the POST binding', () => {
    const services = `<md:SingleSignOnService Binding="${POST}" Location="https://idp.test/sso/post"/>`;
    expect(parseIdpMetadata(metadata({ services }))).toMatchObject({
      ssoUrl: 'https://idp.test/sso/post',
      ssoBinding: 'post',
    });
  });

  it('takes the one IdP of an EntitiesDescriptor', () => {
    const entities = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${metadata().replace('<?xml version="1.0"?>', '')}</md:EntitiesDescriptor>`;
    expect(parseIdpMetadata(entities).entityId).toBe('https://idp.test/entity');
  });

  it('ignores encryption keys and keeps keys without a use', () => {
    const key = (use: string) =>
      `<md:KeyDescriptor${use}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${CERTIFICATE}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    expect(parseIdpMetadata(metadata({ keys: key('') })).certificates).toHaveLength(1);
    expect(issueOf(metadata({ keys: key(' use="encryption"') }))).toMatch(/no signing certificate/);
  });

  it('names what is wrong', () => {
    expect(issueOf('<md:EntityDescriptor')).toMatch(/not usable XML/);
    expect(issueOf(metadata().replace('?>', '?><!DOCTYPE x [<!ENTITY a "b">]>'))).toMatch(
      /document type/,
    );
    expect(issueOf(metadata({ idp: '' }))).toMatch(/no IDPSSODescriptor/);
    expect(issueOf(metadata({ services: '' }))).toMatch(/no SingleSignOnService/);
    expect(
      issueOf(
        metadata({
          services: `<md:SingleSignOnService Binding="${REDIRECT}" Location="javascript:alert(1)"/>`,
        }),
      ),
    ).toMatch(/not an http/);
    expect(issueOf(metadata({ keys: '' }))).toMatch(/no signing certificate/);
    expect(issueOf(metadata().replace(CERTIFICATE, CERTIFICATE.slice(0, 200)))).toMatch(
      /does not parse/,
    );
    expect(issueOf('<root/>')).toMatch(/not a SAML 2.0 metadata/);
    expect(
      issueOf(
        metadata().replace(
          '</md:EntityDescriptor>',
          `${' '.repeat(1024 * 1024)}</md:EntityDescriptor>`,
        ),
      ),
    ).toMatch(/over/);
  });
});
