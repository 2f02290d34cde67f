import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseIdpMetadata,
  RedisSamlStores,
  SamlConfigError,
  SamlServiceProvider,
  SamlSignInError,
  serviceProviderMetadata,
  type SamlServiceProviderOptions,
  type SamlSignInErrorCode,
} from '#sso';
import type { Attack } from './fixtures/saml/attack.js';
import {
  fromBase64,
  responseXml,
  sign,
  toBase64,
  type ResponseFields,
} from './fixtures/saml/forged-response.js';
import { MESSAGE_ATTACKS } from './fixtures/saml/message-attacks.js';
import { WRAPPING_ATTACKS } from './fixtures/saml/wrapping-attacks.js';
import { selfSignedCertificate, startSamlIdp, type SamlIdp } from './support/saml-idp.js';
import { testRedisPrefix } from './support/scope.js';

/**
 * The SAML service provider of libs/sso against a real SimpleSAMLphp IdP
 * (signed AuthnRequests out, signed responses back) with its stores in the
 * real Redis, then forged messages in the shapes of published attacks
 * (test/fixtures/saml/wrapping-attacks.ts, message-attacks.ts), signed with
 * the IdP's own key or a rogue one, each of which must be refused.
 */
const ALICE = {
  username: 'alice',
  password: 'alice-password',
  email: 'alice@corp.test',
  name: 'Alice Example',
  groups: ['engineering', 'saml-admins'],
};
const SP = {
  entityId: 'https://sas.test/sso/saml/sso_a',
  acsUrl: 'https://sas.test/sso/saml/sso_a/acs',
};
const OTHER_SP = {
  entityId: 'https://sas.test/sso/saml/sso_b',
  acsUrl: 'https://sas.test/sso/saml/sso_b/acs',
};

let idp: SamlIdp;
let redis: Redis;
let stores: RedisSamlStores;
let spKeys: { privateKey: string; certificate: string };
let unrelated: { privateKey: string; certificate: string };
let encryptionKeys: { privateKey: string; certificate: string };

beforeAll(async () => {
  [idp, spKeys, unrelated, encryptionKeys] = await Promise.all([
    startSamlIdp({ users: [ALICE] }),
    selfSignedCertificate('sas.test SP'),
    selfSignedCertificate('unrelated'),
    selfSignedCertificate('sas.test SP encryption'),
  ]);
  await idp.setServiceProvider({ ...SP, certificate: spKeys.certificate });
  redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  stores = new RedisSamlStores(redis, `${testRedisPrefix()}:saml:`);
});

afterAll(async () => {
  await idp?.stop();
  await redis?.quit();
});

function defaultOptions(): SamlServiceProviderOptions {
  const metadata = parseIdpMetadata(idp.metadataXml);
  return {
    spEntityId: SP.entityId,
    acsUrl: SP.acsUrl,
    idpEntityId: metadata.entityId,
    idpSsoUrl: metadata.ssoUrl,
    idpCertificates: metadata.certificates,
    spPrivateKey: spKeys.privateKey,
    spCertificate: spKeys.certificate,
    allowIdpInitiated: false,
  };
}

function serviceProvider(overrides: Partial<SamlServiceProviderOptions> = {}) {
  return new SamlServiceProvider({ ...defaultOptions(), ...overrides }, stores);
}

/** SP-initiated: our AuthnRequest to the IdP, Alice's password, the form the IdP posts back. */
async function signIn(sp = serviceProvider(), relayState = 'interaction-1') {
  const { url, requestId } = await sp.authorizeUrl(relayState);
  const form = await idp.login(url, ALICE.username, ALICE.password);
  return { requestId, form, body: { SAMLResponse: form.SAMLResponse, RelayState: relayState } };
}

async function refusal(attempt: Promise<unknown>): Promise<SamlSignInErrorCode> {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SamlSignInError);
  return (error as SamlSignInError).code;
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

describe('IdP and SP metadata', () => {
  it('reads the entity id, SSO URL and signing certificate from the IdP’s metadata', () => {
    const metadata = parseIdpMetadata(idp.metadataXml);
    expect(metadata).toMatchObject({
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      ssoBinding: 'redirect',
    });
    expect(metadata.certificates.map(fingerprint)).toEqual([fingerprint(idp.certificate)]);
  });

  it('refuses metadata with a DOCTYPE, without an IdP, or with a broken certificate', () => {
    const withDoctype = idp.metadataXml.replace(
      '<?xml version="1.0"?>',
      '<?xml version="1.0"?><!DOCTYPE md [<!ENTITY x "x">]>',
    );
    const spOnly = serviceProviderMetadata({ ...SP, signingCertificate: spKeys.certificate });
    const brokenCertificate = idp.metadataXml.replace(
      /<ds:X509Certificate>[^<]{40}/,
      '<ds:X509Certificate>AAAA',
    );
    for (const [xml, issue] of [
      [withDoctype, /document type/],
      [spOnly, /no IDPSSODescriptor/],
      [brokenCertificate, /certificate/],
      ['<md:EntityDescriptor', /not usable XML/],
    ] as const) {
      const error = (() => {
        try {
          parseIdpMetadata(xml);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(SamlConfigError);
      expect(error).toMatchObject({
        field: 'idp_metadata_xml',
        issue: expect.stringMatching(issue),
      });
    }
  });

  it('publishes SP metadata with our signing certificate, signed requests and signed assertions wanted', () => {
    const xml = serviceProviderMetadata({ ...SP, signingCertificate: spKeys.certificate });
    const document = new DOMParser().parseFromString(xml, 'text/xml');
    const md = 'urn:oasis:names:tc:SAML:2.0:metadata';
    const root = document.documentElement!;
    expect(root.getAttribute('entityID')).toBe(SP.entityId);
    const descriptor = root.getElementsByTagNameNS(md, 'SPSSODescriptor')[0]!;
    expect(descriptor.getAttribute('AuthnRequestsSigned')).toBe('true');
    expect(descriptor.getAttribute('WantAssertionsSigned')).toBe('true');
    const acs = root.getElementsByTagNameNS(md, 'AssertionConsumerService')[0]!;
    expect(acs.getAttribute('Location')).toBe(SP.acsUrl);
    const certificate = root.getElementsByTagNameNS(
      'http://www.w3.org/2000/09/xmldsig#',
      'X509Certificate',
    )[0]!;
    expect(
      fingerprint(
        `-----BEGIN CERTIFICATE-----\n${certificate.textContent}\n-----END CERTIFICATE-----`,
      ),
    ).toBe(fingerprint(spKeys.certificate));
  });
});

describe('sign-in through SimpleSAMLphp', () => {
  it('signs Alice in with her email NameID, name and groups', async () => {
    const sp = serviceProvider();
    const { requestId, form, body } = await signIn(sp);
    expect(form.acsUrl).toBe(SP.acsUrl);
    expect(form.RelayState).toBe('interaction-1');
    const identity = await sp.consumePostResponse(body);
    expect(identity).toMatchObject({
      nameId: ALICE.email,
      email: ALICE.email,
      name: ALICE.name,
      groups: ALICE.groups,
      inResponseTo: requestId,
    });
    expect(identity.notOnOrAfter!.getTime()).toBeGreaterThan(Date.now());
    expect(identity.attributes.email).toEqual([ALICE.email]);
  });

  it('is refused by the IdP when our AuthnRequest is not signed with the registered certificate', async () => {
    const impostor = serviceProvider({
      spPrivateKey: unrelated.privateKey,
      spCertificate: unrelated.certificate,
    });
    const { url } = await impostor.authorizeUrl('interaction-1');
    await expect(idp.login(url, ALICE.username, ALICE.password)).rejects.toThrow();
    await expect(idp.log()).resolves.toMatch(/Unable to validate signature on query string/);
  });

  it('decrypts an encrypted assertion with the connection’s decryption key, and only with it', async () => {
    const encrypted = {
      entityId: 'https://sas.test/sso/saml/sso_enc',
      acsUrl: 'https://sas.test/sso/saml/sso_enc/acs',
    };
    await idp.setServiceProvider({
      ...encrypted,
      certificate: spKeys.certificate,
      encryptionCertificate: encryptionKeys.certificate,
    });
    const options = { spEntityId: encrypted.entityId, acsUrl: encrypted.acsUrl };
    const sp = serviceProvider({ ...options, decryptionPrivateKey: encryptionKeys.privateKey });
    const { body } = await signIn(sp);
    expect(fromBase64(body.SAMLResponse)).toMatch(/EncryptedAssertion/);
    expect(fromBase64(body.SAMLResponse)).not.toContain(ALICE.email);
    await expect(sp.consumePostResponse(body)).resolves.toMatchObject({
      email: ALICE.email,
      groups: ALICE.groups,
    });

    const withoutKey = serviceProvider(options);
    const again = await signIn(withoutKey);
    expect(await refusal(withoutKey.consumePostResponse(again.body))).toBe('misconfigured');
  });

  it('refuses the same response a second time', async () => {
    const sp = serviceProvider();
    const { body } = await signIn(sp);
    await sp.consumePostResponse(body);
    expect(await refusal(sp.consumePostResponse(body))).toBe('replayed');
    // Another instance sharing the stores (another API replica) refuses it too.
    expect(await refusal(serviceProvider().consumePostResponse(body))).toBe('replayed');
  });

  it('lets exactly one of two simultaneous posts of a response through', async () => {
    const { body } = await signIn();
    const outcomes = await Promise.allSettled([
      serviceProvider().consumePostResponse(body),
      serviceProvider().consumePostResponse(body),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((o) => o.status === 'rejected');
    expect(refused!.reason).toBeInstanceOf(SamlSignInError);
    expect(['replayed', 'in_response_to_unknown']).toContain(refused!.reason.code);
  });

  it('keeps the assertion id in Redis until NotOnOrAfter plus the clock skew', async () => {
    const prefix = `${testRedisPrefix()}:saml-ttl:`;
    const own = new RedisSamlStores(redis, prefix);
    const sp = new SamlServiceProvider({ ...defaultOptions(), clockSkewSeconds: 120 }, own);
    const { body } = await signIn(sp);
    const identity = await sp.consumePostResponse(body);
    const keys = await redis.keys(`${prefix}assertion:*`);
    expect(keys).toHaveLength(1);
    const ttl = await redis.pttl(keys[0]!);
    const untilExpiry = identity.notOnOrAfter!.getTime() - Date.now();
    expect(ttl).toBeGreaterThan(untilExpiry);
    expect(ttl).toBeLessThanOrEqual(untilExpiry + 120_000 + 1_000);
    // The request was answered: its id is no longer pending.
    await expect(redis.keys(`${prefix}request:*`)).resolves.toEqual([]);
  });

  it('lets a Redis failure surface as itself, not as a refused response', async () => {
    const { body } = await signIn();
    const outage = new Error('redis is down');
    const requests = stores.requests;
    const failing = new SamlServiceProvider(defaultOptions(), {
      assertions: stores.assertions,
      requests: {
        saveAsync: (id, value) => requests.saveAsync(id, value),
        removeAsync: (id) => requests.removeAsync(id),
        bindRelayState: (id, relayState) => requests.bindRelayState(id, relayState),
        relayStateOf: (id) => requests.relayStateOf(id),
        getAsync: () => Promise.reject(outage),
      },
    });
    await expect(failing.consumePostResponse(body)).rejects.toBe(outage);
  });

  it('refuses a response the IdP made for another SP', async () => {
    await idp.setServiceProvider({ ...OTHER_SP, certificate: spKeys.certificate });
    const other = serviceProvider({ spEntityId: OTHER_SP.entityId, acsUrl: OTHER_SP.acsUrl });
    const { body } = await signIn(other);
    expect(await refusal(serviceProvider().consumePostResponse(body))).toBe('wrong_destination');
    // The request was sent by the other SP: it is not pending for ours.
    expect(
      await refusal(serviceProvider({ acsUrl: OTHER_SP.acsUrl }).consumePostResponse(body)),
    ).toBe('in_response_to_unknown');
  });

  it('refuses an IdP-initiated response unless the connection allows it', async () => {
    const unsolicitedUrl = `${idp.ssoUrl}?spentityid=${encodeURIComponent(SP.entityId)}`;
    const first = await idp.login(unsolicitedUrl, ALICE.username, ALICE.password);
    expect(fromBase64(first.SAMLResponse)).not.toMatch(/InResponseTo/);
    expect(await refusal(serviceProvider().consumePostResponse(first))).toBe('unsolicited');

    const second = await idp.login(unsolicitedUrl, ALICE.username, ALICE.password);
    const identity = await serviceProvider({ allowIdpInitiated: true }).consumePostResponse(second);
    expect(identity).toMatchObject({ email: ALICE.email, inResponseTo: null });
  });

  it('refuses a response whose NameID was changed after signing', async () => {
    const sp = serviceProvider();
    const { body } = await signIn(sp);
    const tampered = fromBase64(body.SAMLResponse).replace(
      `>${ALICE.email}</saml:NameID>`,
      '>mallory@corp.test</saml:NameID>',
    );
    expect(tampered).toContain('mallory@corp.test');
    expect(
      await refusal(sp.consumePostResponse({ ...body, SAMLResponse: toBase64(tampered) })),
    ).toBe('signature_invalid');
  });

  it('accepts any of several IdP certificates (a rollover) and none but them', async () => {
    const rollover = serviceProvider({ idpCertificates: [unrelated.certificate, idp.certificate] });
    const { body } = await signIn(rollover);
    await expect(rollover.consumePostResponse(body)).resolves.toMatchObject({ email: ALICE.email });

    const wrongOnly = serviceProvider({ idpCertificates: [unrelated.certificate] });
    const again = await signIn(wrongOnly);
    expect(await refusal(wrongOnly.consumePostResponse(again.body))).toBe('signature_invalid');
  });

  it('refuses a RelayState other than the one the request was sent with', async () => {
    const sp = serviceProvider();
    const { body } = await signIn(sp, 'interaction-1');
    expect(await refusal(sp.consumePostResponse({ ...body, RelayState: 'interaction-2' }))).toBe(
      'invalid_response',
    );
  });

  it('refuses an oversized SAMLResponse before decoding it', async () => {
    const huge = 'PD94'.repeat(64 * 1024 + 1);
    expect(await refusal(serviceProvider().consumePostResponse({ SAMLResponse: huge }))).toBe(
      'too_large',
    );
  });
});

describe('forged responses (attack suite)', () => {
  const RELAY = 'interaction-1';

  /** A pending request of our SP and the fields of a valid answer to it. */
  async function pending(sp: SamlServiceProvider) {
    const { requestId } = await sp.authorizeUrl(RELAY);
    const fields: ResponseFields = {
      issuer: idp.entityId,
      audience: SP.entityId,
      recipient: SP.acsUrl,
      inResponseTo: requestId,
      nameId: ALICE.email,
      attributes: { displayName: [ALICE.name], groups: ALICE.groups },
    };
    return fields;
  }
  const idpKey = () => ({ privateKey: idp.privateKey, certificate: idp.certificate });

  it('accepts a forged response signed with the IdP’s key, on the assertion or on the response', async () => {
    const sp = serviceProvider();
    for (const element of ['Assertion', 'Response'] as const) {
      const xml = sign(responseXml(await pending(sp)), element, idpKey());
      const identity = await sp.consumePostResponse({
        SAMLResponse: toBase64(xml),
        RelayState: RELAY,
      });
      expect(identity).toMatchObject({ email: ALICE.email, groups: ALICE.groups });
    }
  });

  /** What an attack's builder gives, as the form posted to the ACS. */
  function form(built: ReturnType<Attack['build']>) {
    if (typeof built === 'string') return { SAMLResponse: toBase64(built), RelayState: RELAY };
    if ('base64' in built) return { SAMLResponse: built.base64, RelayState: RELAY };
    return { SAMLResponse: toBase64(built.xml), RelayState: built.relayState };
  }

  it.each([...WRAPPING_ATTACKS, ...MESSAGE_ATTACKS])('refuses $name', async (attack) => {
    const sp = serviceProvider();
    const foreign = await serviceProvider({ spEntityId: OTHER_SP.entityId }).authorizeUrl(RELAY);
    const built = attack.build({
      fields: await pending(sp),
      relayState: RELAY,
      foreignRequestId: foreign.requestId,
      idp: idpKey(),
      rogue: unrelated,
    });
    const error = await sp.consumePostResponse(form(built)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SamlSignInError);
    expect(error).toMatchObject({ code: attack.refusal });
    expect((error as Error).message).not.toMatch(/<|mallory|evil/);
  });
});
