import type { Element, Node } from '@xmldom/xmldom';
import { SamlSignInError } from './errors.js';
import { childElements, isElement, NS, parseXml } from './xml.js';

/** 256 KiB of base64: far above any real response, far below what could hurt a parser. */
export const MAX_SAML_RESPONSE_BASE64_LENGTH = 256 * 1024;

/**
 * What can be read from a SAMLResponse before its signature is checked. None
 * of it is trusted: it only lets a response be refused early, with the right
 * reason (a replay, an unsolicited response, another destination).
 */
export interface ResponseEnvelope {
  inResponseTo: string | null;
  destination: string | null;
  /** The Response's own Issuer (optional in SAML; the assertion's is checked after the signature). */
  issuer: string | null;
  /** The ID of the one Assertion, if it is not encrypted. */
  assertionId: string | null;
}

/** Size, encoding and DTD checks, then a strict parse; throws SamlSignInError. */
export function openResponseEnvelope(samlResponse: unknown): ResponseEnvelope {
  if (typeof samlResponse !== 'string' || samlResponse.length === 0) {
    throw new SamlSignInError('invalid_response', 'the form has no SAMLResponse');
  }
  if (samlResponse.length > MAX_SAML_RESPONSE_BASE64_LENGTH) {
    throw new SamlSignInError(
      'too_large',
      `the SAMLResponse is over ${MAX_SAML_RESPONSE_BASE64_LENGTH} characters`,
    );
  }
  if (!/^[A-Za-z0-9+/\s]+={0,2}\s*$/.test(samlResponse)) {
    throw new SamlSignInError('invalid_response', 'the SAMLResponse is not base64');
  }
  let root;
  try {
    root = parseXml(Buffer.from(samlResponse, 'base64').toString('utf8')).documentElement!;
  } catch {
    throw new SamlSignInError(
      'invalid_response',
      'the SAMLResponse is not well-formed XML without a DTD',
    );
  }
  if (!isElement(root, NS.protocol, 'Response')) {
    throw new SamlSignInError('invalid_response', 'the SAMLResponse is not a SAML 2.0 Response');
  }
  const forbidden = forbiddenContent(root);
  if (forbidden !== null) {
    throw new SamlSignInError('invalid_response', `the SAMLResponse ${forbidden}`);
  }
  // node-saml reads only the Response's direct child; a second assertion anywhere else is
  // there for some other reader to find (signature wrapping, decoys in ds:Object).
  const assertionCount =
    root.getElementsByTagNameNS(NS.assertion, 'Assertion').length +
    root.getElementsByTagNameNS(NS.assertion, 'EncryptedAssertion').length;
  if (assertionCount > 1) {
    throw new SamlSignInError('signature_invalid', 'the response holds more than one assertion');
  }
  if (topStatusCode(root) !== SUCCESS) {
    // Error statuses are often unsigned; nothing in them is echoed.
    throw new SamlSignInError('invalid_response', 'the IdP answered with an error status');
  }
  return {
    issuer: childElements(root, NS.assertion, 'Issuer')[0]?.textContent?.trim() || null,
    inResponseTo: root.getAttribute('InResponseTo') || null,
    destination: root.getAttribute('Destination') || null,
    assertionId: childElements(root, NS.assertion, 'Assertion')[0]?.getAttribute('ID') || null,
  };
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';

function topStatusCode(response: Element): string | null {
  const status = childElements(response, NS.protocol, 'Status')[0];
  const code = status ? childElements(status, NS.protocol, 'StatusCode')[0] : undefined;
  return code?.getAttribute('Value') ?? null;
}

/** Real responses nest about a dozen deep; the signature and XPath code downstream recurse. */
const MAX_DEPTH = 64;

/**
 * What a response may not hold. Signatures are computed without comments, so
 * a comment can split a signed NameID (`user@evil.test<!---->.example.com`,
 * CVE-2017-11427) and a reader taking the first text node sees another user;
 * no IdP needs comments or processing instructions. Deep nesting would exhaust
 * the stack of the recursive code after us. Walked without recursion for the
 * same reason.
 */
function forbiddenContent(root: Node): string | null {
  const pending: [Node, number][] = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (depth > MAX_DEPTH) return 'nests elements too deeply';
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      if (
        child.nodeType === child.COMMENT_NODE ||
        child.nodeType === child.PROCESSING_INSTRUCTION_NODE
      ) {
        return 'holds XML comments or processing instructions';
      }
      if (child.nodeType === child.ELEMENT_NODE) pending.push([child, depth + 1]);
    }
  }
  return null;
}
