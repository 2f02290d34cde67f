import { X509Certificate } from 'node:crypto';
import { SamlConfigError } from './errors.js';

/**
 * An X.509 certificate as PEM, from PEM or from bare base64 DER (as metadata
 * and IdP admin consoles show it). Throws SamlConfigError naming `field` when
 * it is not a certificate.
 */
export function certificateToPem(value: string, field: string): string {
  const body = value.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new SamlConfigError(field, 'a certificate is not PEM or base64');
  }
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new SamlConfigError(field, 'a certificate does not parse as X.509');
  }
  return pem;
}
