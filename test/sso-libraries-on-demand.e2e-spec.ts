import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toPublicId } from '#common';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { childEnv, spawnApi, type ChildService } from './support/processes.js';
import { startStack, type Stack } from './support/stack.js';

/**
 * The SAML, XML, LDAP and X.509 libraries (libs/sso/src/libraries.ts) are not
 * loaded when the API starts, only when an SSO request needs one: about 8 MB
 * of heap that every full garbage collection would otherwise mark. Seen from
 * a real API process, which logs every package file it resolves.
 */

const SSO_PACKAGES = [
  '@node-saml/node-saml',
  '@xmldom/xmldom',
  'ldapts',
  '@peculiar/x509',
  'xml-crypto',
];

let stack: Stack;
let api: ChildService;
let log: string;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  log = join(mkdtempSync(join(tmpdir(), 'sas-packages-')), 'resolved.txt');
  const hook = new URL('./support/package-log-hook.mjs', import.meta.url).href;
  api = await spawnApi(childEnv({ NODE_OPTIONS: `--import ${hook}`, PACKAGE_LOG: log }));
  await api.ready;
});
afterAll(async () => {
  await api?.kill('SIGTERM');
  await stack?.close();
});

/** The SSO packages the API process has loaded so far. */
function loadedSsoPackages(): string[] {
  const resolved = existsSync(log) ? readFileSync(log, 'utf8') : '';
  return SSO_PACKAGES.filter((name) => resolved.includes(`/node_modules/${name}/`));
}

it('starts without them, and loads each when a request needs it', async () => {
  const ready = await fetch(`${api.url}/health/ready`);
  expect(ready.status).toBe(200);
  // The hook saw the API load its other packages: an empty log would prove nothing.
  expect(readFileSync(log, 'utf8')).toContain('/node_modules/@nestjs/core/');
  expect(loadedSsoPackages()).toEqual([]);

  const client = await TestClient.for({ baseUrl: api.url });
  const org = await createOrganization(stack, await TestClient.for(stack));
  const apiKey = await org.apiKey();
  const path = `/v2/enterprise/organizations/${toPublicId('organization', org.organizationId)}/sso-connections`;

  const ldap = await client.post(path, {
    apiKey,
    json: {
      type: 'ldap',
      name: 'Staff directory',
      email_domains: ['staff.example.com'],
      url: 'ldaps://ldap.example.com',
      bind_dn: 'cn=service,dc=example,dc=com',
      bind_password: 'secret',
      user_base_dn: 'ou=people,dc=example,dc=com',
      user_filter: '(={username})',
    },
  });
  expect(ldap.status, ldap.text).toBe(400);
  expect(ldap.body.error.details).toMatchObject({ field: 'user_filter' });
  expect(ldap.body.error.details.issue).toContain('is not a valid LDAP filter');
  expect(loadedSsoPackages()).toEqual(['ldapts']);

  const saml = await client.post(path, {
    apiKey,
    json: {
      type: 'saml',
      name: 'IdP',
      email_domains: ['idp.example.com'],
      idp_metadata_xml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"',
    },
  });
  expect(saml.status, saml.text).toBe(400);
  expect(saml.body.error.details).toMatchObject({ field: 'idp_metadata_xml' });
  // The connection's own key and certificate are made before its metadata is read; node-saml and
  // xml-crypto wait for a sign-in.
  expect(loadedSsoPackages()).toEqual(['@xmldom/xmldom', 'ldapts', '@peculiar/x509']);
});
