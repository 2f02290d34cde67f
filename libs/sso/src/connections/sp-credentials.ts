import { webcrypto } from 'node:crypto';
import { x509Library } from '../libraries.js';

const VALID_YEARS = 10;
const ALGORITHM = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};

/**
 * A connection's own SP key and self-signed certificate (RSA 2048, SHA-256,
 * ten years): what signs its AuthnRequests and decrypts encrypted assertions,
 * and what its SP metadata publishes for both. IdPs pin the certificate from the metadata, so self-signed is
 * the norm; one key per connection keeps organisations' trust apart.
 */
export async function createSpCredentials(
  commonName: string,
): Promise<{ privateKey: string; certificate: string }> {
  const x509 = x509Library();
  x509.cryptoProvider.set(webcrypto);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const notBefore = new Date();
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + VALID_YEARS);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex'),
    name: `CN=${commonName.replace(/[,=+<>#;"\\]/g, ' ')}`,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: ALGORITHM,
    // One key signs our AuthnRequests and decrypts the assertions IdPs encrypt to us.
    extensions: [
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const privateKey = x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
  return { privateKey, certificate: certificate.toString('pem') };
}
