import type { Element } from '@xmldom/xmldom';
import { certificateToPem } from './certificate.js';
import { SamlConfigError } from './errors.js';
import { isHttpUrl } from './url.js';
import { childElements, isElement, NS, parseXml, XmlParseError } from './xml.js';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  ssoBinding: 'redirect' | 'post';
  /** PEM certificates the IdP signs with (all of them: more than one during a key rollover). */
  certificates: string[];
  wantAuthnRequestsSigned: boolean;
}

const BINDINGS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

const FIELD = 'idp_metadata_xml';

/** One entity's metadata is kilobytes; federation aggregates (megabytes) are not what is asked for. */
export const MAX_IDP_METADATA_LENGTH = 1024 * 1024;

function refuse(issue: string): never {
  throw new SamlConfigError(FIELD, issue);
}

/** Reads what an SP needs from an IdP's SAML 2.0 metadata; throws SamlConfigError naming what is wrong. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (xml.length > MAX_IDP_METADATA_LENGTH) {
    refuse(`the metadata is over ${MAX_IDP_METADATA_LENGTH} characters; give one IdP’s metadata`);
  }
  let root: Element;
  try {
    root = parseXml(xml).documentElement!;
  } catch (error) {
    refuse(`the metadata is not usable XML (${(error as XmlParseError).message})`);
  }
  const entity = entityWithIdp(root);
  const entityId = entity.getAttribute('entityID')?.trim();
  if (!entityId) refuse('the EntityDescriptor has no entityID');
  const idp = childElements(entity, NS.metadata, 'IDPSSODescriptor')[0]!;
  const { ssoUrl, ssoBinding } = singleSignOnService(idp);
  return {
    entityId,
    ssoUrl,
    ssoBinding,
    certificates: signingCertificates(idp),
    wantAuthnRequestsSigned: idp.getAttribute('WantAuthnRequestsSigned') === 'true',
  };
}

/** The EntityDescriptor holding an IDPSSODescriptor: the root, or the only such one in an EntitiesDescriptor. */
function entityWithIdp(root: Element): Element {
  const hasIdp = (entity: Element) =>
    childElements(entity, NS.metadata, 'IDPSSODescriptor').length > 0;
  if (isElement(root, NS.metadata, 'EntityDescriptor')) {
    if (!hasIdp(root)) refuse('the metadata has no IDPSSODescriptor (is it an IdP’s metadata?)');
    return root;
  }
  if (isElement(root, NS.metadata, 'EntitiesDescriptor')) {
    const idps = childElements(root, NS.metadata, 'EntityDescriptor').filter(hasIdp);
    if (idps.length === 1) return idps[0]!;
    refuse(
      idps.length === 0
        ? 'the metadata has no IDPSSODescriptor'
        : 'the metadata describes several IdPs; give the one to use',
    );
  }
  refuse('the root element is not a SAML 2.0 metadata EntityDescriptor');
}

function singleSignOnService(idp: Element): Pick<IdpMetadata, 'ssoUrl' | 'ssoBinding'> {
  const services = childElements(idp, NS.metadata, 'SingleSignOnService');
  for (const ssoBinding of ['redirect', 'post'] as const) {
    const service = services.find((s) => s.getAttribute('Binding') === BINDINGS[ssoBinding]);
    const location = service?.getAttribute('Location')?.trim();
    if (!location) continue;
    if (!isHttpUrl(location)) refuse(`the SingleSignOnService Location is not an http(s) URL`);
    return { ssoUrl: location, ssoBinding };
  }
  refuse('the IdP has no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding');
}

function signingCertificates(idp: Element): string[] {
  const certificates: string[] = [];
  for (const key of childElements(idp, NS.metadata, 'KeyDescriptor')) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const info of childElements(key, NS.dsig, 'KeyInfo')) {
      for (const data of childElements(info, NS.dsig, 'X509Data')) {
        for (const certificate of childElements(data, NS.dsig, 'X509Certificate')) {
          certificates.push(certificateToPem(certificate.textContent ?? '', FIELD));
        }
      }
    }
  }
  if (certificates.length === 0) refuse('the IdP has no signing certificate (KeyDescriptor)');
  return [...new Set(certificates)];
}
