import { createPrivateKey } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { CacheProvider, SAML } from '@node-saml/node-saml';
import { samlLibrary } from '../libraries.js';
import { certificateToPem } from './certificate.js';
import { SamlConfigError, SamlSignInError } from './errors.js';
import { signInFailure } from './failure-reasons.js';
import { identityOf, type SamlIdentity } from './identity.js';
import { openResponseEnvelope } from './response-envelope.js';
import { isHttpUrl } from './url.js';
import { DEFAULT_REQUEST_TTL_MS, type SamlReplayStore, type SamlRequestStore } from './stores.js';
import { verifiedAssertionOf } from './verified-assertion.js';

export interface SamlServiceProviderOptions {
  spEntityId: string;
  acsUrl: string;
  idpEntityId: string;
  idpSsoUrl: string;
  /** PEM or base64; every one is trusted, so a rollover lists the old and the new. */
  idpCertificates: string[];
  /** PEM: signs our AuthnRequests. */
  spPrivateKey: string;
  spCertificate: string;
  /** PEM: decrypts EncryptedAssertions. */
  decryptionPrivateKey?: string;
  /** Allowed difference between the IdP's clock and ours; 60 by default. */
  clockSkewSeconds?: number;
  allowIdpInitiated: boolean;
  /** How long a sent AuthnRequest may be answered; 10 minutes by default. */
  requestTtlMs?: number;
}

export interface SamlStores {
  requests: SamlRequestStore;
  assertions: SamlReplayStore;
}

/** SAML bindings §3.4.3: a RelayState is at most 80 bytes. */
const MAX_RELAY_STATE_BYTES = 80;

/**
 * One SAML connection seen from our side: signed AuthnRequests out, POSTed
 * responses in. node-saml checks signatures, InResponseTo, time and audience;
 * this class adds what it leaves out (size and DTD limits, issuer, recipient
 * and destination, RelayState binding, assertion replay) and maps failures to
 * typed reasons.
 */
export class SamlServiceProvider {
  private readonly saml: SAML;
  private readonly skewMs: number;

  constructor(
    private readonly options: SamlServiceProviderOptions,
    private readonly stores: SamlStores,
  ) {
    this.skewMs = (options.clockSkewSeconds ?? 60) * 1000;
    if (!Number.isFinite(this.skewMs) || this.skewMs < 0) {
      throw new SamlConfigError('clock_skew_seconds', 'must be a number of seconds, 0 or more');
    }
    if (options.idpCertificates.length === 0) {
      throw new SamlConfigError('idp_certificates', 'at least one certificate is needed');
    }
    for (const [field, url] of [
      ['idp_sso_url', options.idpSsoUrl],
      ['acs_url', options.acsUrl],
    ] as const) {
      if (!isHttpUrl(url)) throw new SamlConfigError(field, 'is not an http(s) URL');
    }
    const idpCert = options.idpCertificates.map((c) => certificateToPem(c, 'idp_certificates'));
    checkPrivateKey(options.spPrivateKey, 'sp_private_key');
    if (options.decryptionPrivateKey !== undefined) {
      checkPrivateKey(options.decryptionPrivateKey, 'decryption_private_key');
    }
    const requestTtlMs = options.requestTtlMs ?? DEFAULT_REQUEST_TTL_MS;
    const { SAML, ValidateInResponseTo } = samlLibrary();
    this.saml = new SAML({
      issuer: options.spEntityId,
      audience: options.spEntityId,
      callbackUrl: options.acsUrl,
      entryPoint: options.idpSsoUrl,
      idpIssuer: options.idpEntityId,
      idpCert,
      privateKey: options.spPrivateKey,
      publicCert: certificateToPem(options.spCertificate, 'sp_certificate'),
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      decryptionPvk: options.decryptionPrivateKey,
      // Either signature will do, but one there must be: with both false node-saml still
      // requires the assertion to be signed whenever the response is not (the Entra ID and
      // ADFS default signs only the assertion).
      wantAuthnResponseSigned: false,
      wantAssertionsSigned: false,
      validateInResponseTo: options.allowIdpInitiated
        ? ValidateInResponseTo.ifPresent
        : ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: requestTtlMs,
      cacheProvider: requestsOf(options.spEntityId, stores.requests),
      acceptedClockSkewMs: this.skewMs,
      // No NameIDPolicy format and no RequestedAuthnContext: IdPs refuse requests for a format
      // or context they are not set up for (MFA is not PasswordProtectedTransport).
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      authnRequestBinding: 'HTTP-Redirect',
    });
  }

  /** The IdP URL to send the browser to, with a signed AuthnRequest whose id is now pending. */
  async authorizeUrl(relayState: string): Promise<{ url: string; requestId: string }> {
    const relayBytes = Buffer.byteLength(relayState);
    if (relayBytes === 0 || relayBytes > MAX_RELAY_STATE_BYTES) {
      throw new RangeError(`a RelayState must be 1 to ${MAX_RELAY_STATE_BYTES} bytes`);
    }
    const url = await this.saml.getAuthorizeUrlAsync(relayState, undefined, {});
    const requestId = requestIdOf(url);
    await this.stores.requests.bindRelayState(
      scopedId(this.options.spEntityId, requestId),
      relayState,
    );
    return { url, requestId };
  }

  /** Validates a response POSTed to the ACS URL; throws SamlSignInError with the reason. */
  async consumePostResponse(body: {
    SAMLResponse: string;
    RelayState?: string;
  }): Promise<SamlIdentity> {
    const { SAMLResponse, RelayState } = body;
    const envelope = openResponseEnvelope(SAMLResponse);
    if (envelope.destination !== null && envelope.destination !== this.options.acsUrl) {
      throw new SamlSignInError('wrong_destination', 'the response is addressed to another URL');
    }
    if (envelope.issuer !== null && envelope.issuer !== this.options.idpEntityId) {
      throw new SamlSignInError('invalid_response', 'the response was issued by another IdP');
    }
    if (envelope.inResponseTo === null && !this.options.allowIdpInitiated) {
      throw new SamlSignInError(
        'unsolicited',
        'the response answers no request of ours and IdP-initiated sign-in is off',
      );
    }
    if (envelope.inResponseTo !== null) {
      const bound = await this.stores.requests.relayStateOf(
        scopedId(this.options.spEntityId, envelope.inResponseTo),
      );
      if (bound !== null && bound !== (RelayState ?? '')) {
        throw new SamlSignInError(
          'invalid_response',
          'the RelayState is not the one the request was sent with',
        );
      }
    }
    if (
      envelope.assertionId !== null &&
      (await this.stores.assertions.seen(this.options.idpEntityId, envelope.assertionId))
    ) {
      throw new SamlSignInError('replayed', 'this assertion has been used already');
    }

    let profile;
    try {
      ({ profile } = await this.saml.validatePostResponseAsync({ SAMLResponse }));
    } catch (error) {
      // Redis failing is our outage, not a bad response: it surfaces as itself.
      if (error instanceof StoreFailure) throw error.cause;
      throw signInFailure(error);
    }
    if (profile === null)
      throw new SamlSignInError('invalid_response', 'the response signs no one in');

    const assertion = verifiedAssertionOf(profile);
    if (assertion.issuer !== this.options.idpEntityId) {
      throw new SamlSignInError('invalid_response', 'the assertion was issued by another IdP');
    }
    if (!assertion.recipients.includes(this.options.acsUrl)) {
      throw new SamlSignInError(
        'wrong_destination',
        'the assertion’s bearer confirmation names another recipient',
      );
    }
    if (assertion.notOnOrAfter === null) {
      throw new SamlSignInError('invalid_response', 'the assertion has no NotOnOrAfter');
    }
    const identity = identityOf(profile, assertion);
    const keepMs = assertion.notOnOrAfter.getTime() + this.skewMs - Date.now();
    if (!(await this.stores.assertions.claim(this.options.idpEntityId, assertion.id, keepMs))) {
      throw new SamlSignInError('replayed', 'this assertion has been used already');
    }
    return identity;
  }
}

/**
 * Request ids are kept per SP entity id: connections share one store, and a
 * request sent for one must not count as pending for another.
 */
function scopedId(spEntityId: string, requestId: string): string {
  return `${spEntityId}\0${requestId}`;
}

class StoreFailure extends Error {}

function requestsOf(spEntityId: string, store: SamlRequestStore): CacheProvider {
  const marked = <T>(work: Promise<T>) =>
    work.catch((cause: unknown) => {
      throw new StoreFailure('the SAML request store failed', { cause });
    });
  return {
    saveAsync: (id, value) => marked(store.saveAsync(scopedId(spEntityId, id), value)),
    getAsync: (id) => marked(store.getAsync(scopedId(spEntityId, id))),
    removeAsync: (id) => marked(store.removeAsync(id === null ? null : scopedId(spEntityId, id))),
  };
}

function checkPrivateKey(pem: string, field: string): void {
  try {
    createPrivateKey(pem);
  } catch {
    throw new SamlConfigError(field, 'is not a PEM private key');
  }
}

/** The ID of the AuthnRequest node-saml deflated into the URL it built. */
function requestIdOf(url: string): string {
  const encoded = new URL(url).searchParams.get('SAMLRequest');
  const xml = encoded ? inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8') : '';
  const id = /<samlp:AuthnRequest\b[^>]*\sID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error('node-saml built an AuthnRequest without an ID');
  return id;
}
