import { describe, expect, it } from 'vitest';
import { SamlSignInError } from './errors.js';
import { MAX_SAML_RESPONSE_BASE64_LENGTH, openResponseEnvelope } from './response-envelope.js';

const base64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

const RESPONSE =
  '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"' +
  ' ID="_r" Destination="https://sp.test/acs" InResponseTo="_req">' +
  '<saml:Issuer>https://idp.test</saml:Issuer>' +
  '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
  '<saml:Assertion ID="_a1"><saml:Subject><saml:NameID>alice@corp.test</saml:NameID></saml:Subject></saml:Assertion>' +
  '</samlp:Response>';

function codeOf(samlResponse: unknown): string {
  try {
    openResponseEnvelope(samlResponse);
  } catch (error) {
    expect(error).toBeInstanceOf(SamlSignInError);
    expect((error as Error).message).not.toContain('<');
    return (error as SamlSignInError).code;
  }
  return 'accepted';
}

describe('openResponseEnvelope', () => {
  it('reads InResponseTo, Destination and the assertion ids without trusting them', () => {
    expect(openResponseEnvelope(base64(RESPONSE))).toEqual({
      issuer: 'https://idp.test',
      inResponseTo: '_req',
      destination: 'https://sp.test/acs',
      assertionId: '_a1',
    });
  });

  it('refuses more than 256 KiB of base64 before decoding it', () => {
    const padded = (length: number) => 'A'.repeat(length);
    expect(codeOf(padded(MAX_SAML_RESPONSE_BASE64_LENGTH + 4))).toBe('too_large');
    // At the limit the size passes and the content is judged (here: not XML).
    expect(codeOf(padded(MAX_SAML_RESPONSE_BASE64_LENGTH))).toBe('invalid_response');
  });

  it('refuses what is not a base64 SAML 2.0 Response', () => {
    expect(codeOf(undefined)).toBe('invalid_response');
    expect(codeOf('')).toBe('invalid_response');
    expect(codeOf('not base64!')).toBe('invalid_response');
    expect(codeOf(base64('<samlp:Response'))).toBe('invalid_response');
    expect(codeOf(base64('<Response/>'))).toBe('invalid_response');
  });

  it('refuses an error status, or none', () => {
    const status = (code: string) => RESPONSE.replace('status:Success', `status:${code}`);
    expect(codeOf(base64(status('Responder')))).toBe('invalid_response');
    expect(codeOf(base64(RESPONSE.replace(/<samlp:Status>.*<\/samlp:Status>/, '')))).toBe(
      'invalid_response',
    );
  });

  it('refuses deep nesting without exhausting the stack itself', () => {
    const depth = 25_000;
    const nested = RESPONSE.replace(
      '</samlp:Response>',
      `${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}</samlp:Response>`,
    );
    expect(base64(nested).length).toBeLessThan(MAX_SAML_RESPONSE_BASE64_LENGTH);
    expect(codeOf(base64(nested))).toBe('invalid_response');
  });

  it('refuses a second assertion anywhere (signature wrapping)', () => {
    const twice = RESPONSE.replace(
      '</samlp:Response>',
      '<x><saml:Assertion ID="_a2"/></x></samlp:Response>',
    );
    expect(codeOf(base64(twice))).toBe('signature_invalid');
  });

  it('refuses DTDs, entities, comments and processing instructions', () => {
    expect(codeOf(base64(`<!DOCTYPE r [<!ENTITY a "b">]>${RESPONSE}`))).toBe('invalid_response');
    expect(codeOf(base64(`<!DOCTYPE r SYSTEM "http://evil.test/x.dtd">${RESPONSE}`))).toBe(
      'invalid_response',
    );
    expect(codeOf(base64(RESPONSE.replace('corp.test<', 'corp<!---->.test<')))).toBe(
      'invalid_response',
    );
    expect(codeOf(base64(RESPONSE.replace('<saml:Subject>', '<saml:Subject><?pi x?>')))).toBe(
      'invalid_response',
    );
  });
});
