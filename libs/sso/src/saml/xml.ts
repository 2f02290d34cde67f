import type { Document, Element } from '@xmldom/xmldom';
import { xmlLibrary } from '../libraries.js';

export const NS = {
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
} as const;

/**
 * A document type declaration is how entity expansion ("billion laughs") and
 * external entities (XXE) get in; SAML never needs one, so any is refused
 * before a parser sees the text.
 */
export function declaresDocumentType(xml: string): boolean {
  return /<!DOCTYPE|<!ENTITY/i.test(xml);
}

export class XmlParseError extends Error {}

/** Parses well-formed XML without a DTD; every parser warning or error is a refusal. */
export function parseXml(xml: string): Document {
  if (declaresDocumentType(xml)) throw new XmlParseError('holds a document type declaration');
  let document: Document;
  try {
    const { DOMParser } = xmlLibrary();
    document = new DOMParser({
      // Warnings (such as an unbound prefix in text) are tolerated, errors are not.
      onError: (level, message) => {
        if (level !== 'warning') throw new XmlParseError(`${level}: ${message}`);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    throw error instanceof XmlParseError
      ? error
      : new XmlParseError(error instanceof Error ? error.message : 'does not parse');
  }
  if (document.doctype !== null) throw new XmlParseError('holds a document type declaration');
  if (document.documentElement === null) throw new XmlParseError('has no root element');
  return document;
}

/** Child elements of `parent` (not deeper) with this namespace and local name. */
export function childElements(parent: Element, namespace: string, localName: string): Element[] {
  const found: Element[] = [];
  for (let node = parent.firstChild; node !== null; node = node.nextSibling) {
    if (node.nodeType !== node.ELEMENT_NODE) continue;
    const element = node as Element;
    if (element.namespaceURI === namespace && element.localName === localName) found.push(element);
  }
  return found;
}

export function isElement(element: Element, namespace: string, localName: string): boolean {
  return element.namespaceURI === namespace && element.localName === localName;
}
