import { createRequire } from 'node:module';

/**
 * The SAML, XML, LDAP and X.509 libraries, each loaded the first time a
 * sign-in, a connection's settings or its certificate need it. Loaded at
 * start they held 8.4 MB of every API's heap (83.6 → 75.2 MB used after
 * start; node-saml with its own xml-crypto, xmldom, xpath, xml2js and
 * xmlbuilder 5.4 MB of it), which every full garbage collection marks, in
 * organisations that may never use SSO. All four ship a CommonJS build, so
 * `require` loads them synchronously where they are needed, and the rest of
 * the code keeps its shape.
 *
 * Every runtime use of these packages in libs/sso goes through here: an
 * `instanceof` against a class of another copy (the ES module build) would
 * never match. Type-only imports are free.
 */
const load = createRequire(import.meta.url);

type Saml = typeof import('@node-saml/node-saml');
type Xmldom = typeof import('@xmldom/xmldom');
type Ldapts = typeof import('ldapts');
type X509 = typeof import('@peculiar/x509');

let saml: Saml | undefined;
let xmldom: Xmldom | undefined;
let ldapts: Ldapts | undefined;
let x509: X509 | undefined;

export const samlLibrary = (): Saml => (saml ??= load('@node-saml/node-saml') as Saml);
export const xmlLibrary = (): Xmldom => (xmldom ??= load('@xmldom/xmldom') as Xmldom);
export const ldapLibrary = (): Ldapts => (ldapts ??= load('ldapts') as Ldapts);
export const x509Library = (): X509 => (x509 ??= load('@peculiar/x509') as X509);
