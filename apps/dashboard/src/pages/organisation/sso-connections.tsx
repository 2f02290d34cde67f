import type { CreateSsoConnection, SsoConnection, UpdateSsoConnection } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { CopyValue } from '../../components/copy-value';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { ALL_SCOPES, type Scope } from '../../scopes';
import { ScimTokens } from './scim-tokens';
import {
  ConfirmButton,
  type MemberRole,
  ReadOnlyInTestMode,
  RoleChecks,
  splitList,
  useFocusOnMount,
} from './shared';

type ConnectionType = 'saml' | 'ldap';
type IdpSource = 'xml' | 'url' | 'fields';

/** LDAP settings sent only when filled in (the API has defaults for them). */
const OPTIONAL_LDAP_FIELDS = [
  'ca_certificate',
  'group_base_dn',
  'group_filter',
  'group_name_attribute',
  'email_attribute',
  'name_attribute',
] as const;

/**
 * The organisation's SAML and LDAP sign-in connections: create, test, SP
 * metadata, edit, delete. Like the people they sign in, they are the same in
 * both modes and change in live mode only (the API answers 403 otherwise).
 * Below them, the SCIM tokens that let an identity provider provision people.
 */
export function SsoConnectionsPage() {
  const { client, tokens, profile } = useSession();
  const readOnly = tokens.mode === 'test';
  const organizationId = profile.organization_id;
  const [selected, setSelected] = useState<string | null>(null);
  const pages = useCursorPages(['sso-connections', tokens.mode, organizationId], (cursor) =>
    client.ssoConnections.list(organizationId).page(cursor),
  );
  const current = pages.items.find((connection) => connection.id === selected) ?? null;
  return (
    <>
      <h1>Single sign-on</h1>
      <p className="muted">
        Sign your people in through your SAML identity provider or LDAP directory. Connections
        belong to your organisation in both modes; the sign-in page picks one by the domain of a
        person&apos;s work email.
      </p>
      {readOnly ? (
        <ReadOnlyInTestMode what="your sign-in connections (the same in both modes)" />
      ) : (
        <CreateConnection onCreated={(connection) => setSelected(connection.id)} />
      )}
      <section aria-labelledby="connections">
        <h2 id="connections">Connections</h2>
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>
            No connections yet. Add your identity provider or directory above; until then people
            sign in with passwords.
          </p>
        )}
        {pages.items.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Email domains</th>
                <th scope="col">Status</th>
                <th scope="col">New people get</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((connection) => (
                <tr key={connection.id}>
                  <th scope="row">{connection.name}</th>
                  <td>{connection.type.toUpperCase()}</td>
                  <td>
                    {connection.domains
                      .map(({ domain, status }) => `${domain} (${status})`)
                      .join(', ')}
                  </td>
                  <td>{connection.enabled ? 'enabled' : 'disabled'}</td>
                  <td>
                    {connection.jit_provisioning
                      ? connection.jit_roles.join(', ')
                      : 'nobody (existing accounts only)'}
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-expanded={selected === connection.id}
                      aria-controls="connection-detail"
                      onClick={() => setSelected(selected === connection.id ? null : connection.id)}
                    >
                      Open <span className="visually-hidden">{connection.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager pages={pages} label="Connections" />
      </section>
      {current && (
        <ConnectionDetail
          key={current.id}
          connection={current}
          readOnly={readOnly}
          onDeleted={() => setSelected(null)}
        />
      )}
      <ScimTokens readOnly={readOnly} />
    </>
  );
}

function CreateConnection({ onCreated }: { onCreated: (connection: SsoConnection) => void }) {
  const { client, profile } = useSession();
  const queryClient = useQueryClient();
  const [type, setType] = useState<ConnectionType>('saml');
  const [source, setSource] = useState<IdpSource>('xml');
  const [form, setForm] = useState<Record<string, string>>({
    user_filter: '(mail={username})',
  });
  const [flags, setFlags] = useState<Record<string, boolean>>({ jit_provisioning: true });
  const [jitRoles, setJitRoles] = useState<Set<MemberRole>>(new Set(['admin']));
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const create = useMutation({
    mutationFn: (body: CreateSsoConnection) =>
      client.ssoConnections.create(profile.organization_id, body),
    onSuccess: (connection) => {
      onCreated(connection);
      return queryClient.invalidateQueries({ queryKey: ['sso-connections'] });
    },
  });
  const text = (name: string) => form[name]?.trim() ?? '';
  const field = (
    name: string,
    label: string,
    options: { required?: boolean; type?: string } = {},
  ) => (
    <>
      <label htmlFor={`sso-${name}`}>{label}</label>
      <input
        id={`sso-${name}`}
        type={options.type ?? 'text'}
        required={options.required}
        value={form[name] ?? ''}
        onChange={(event) => setForm({ ...form, [name]: event.target.value })}
      />
    </>
  );
  const area = (
    name: string,
    label: string,
    options: { required?: boolean; hint?: string } = {},
  ) => (
    <>
      <label htmlFor={`sso-${name}`}>{label}</label>
      {options.hint && (
        <span className="muted" id={`sso-${name}-hint`}>
          {options.hint}
        </span>
      )}
      <textarea
        id={`sso-${name}`}
        rows={6}
        required={options.required}
        aria-describedby={options.hint ? `sso-${name}-hint` : undefined}
        value={form[name] ?? ''}
        onChange={(event) => setForm({ ...form, [name]: event.target.value })}
      />
    </>
  );
  const flag = (name: string, label: string) => (
    <label className="org-block-label">
      <input
        type="checkbox"
        checked={flags[name] ?? false}
        onChange={(event) => setFlags({ ...flags, [name]: event.target.checked })}
      />
      {label}
    </label>
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: CreateSsoConnection = {
      type,
      name: text('name'),
      email_domains: splitList(form.email_domains ?? ''),
      jit_provisioning: flags.jit_provisioning ?? false,
      jit_roles: [...jitRoles],
      default_scopes: [...scopes],
    };
    const groups = parseGroupScopes(form.group_scopes ?? '');
    if (Object.keys(groups).length > 0) body.group_scopes = groups;
    if (type === 'saml') {
      if (source === 'xml') body.idp_metadata_xml = text('idp_metadata_xml');
      if (source === 'url') body.idp_metadata_url = text('idp_metadata_url');
      if (source === 'fields') {
        body.idp_entity_id = text('idp_entity_id');
        body.idp_sso_url = text('idp_sso_url');
        body.idp_certificates = splitPem(form.idp_certificates ?? '');
      }
      body.allow_idp_initiated = flags.allow_idp_initiated ?? false;
      if (text('clock_skew_seconds')) body.clock_skew_seconds = Number(text('clock_skew_seconds'));
    } else {
      body.url = text('url');
      body.start_tls = flags.start_tls ?? false;
      body.allow_insecure = flags.allow_insecure ?? false;
      body.nested_groups = flags.nested_groups ?? false;
      body.bind_dn = text('bind_dn');
      body.bind_password = form.bind_password ?? '';
      body.user_base_dn = text('user_base_dn');
      body.user_filter = text('user_filter');
      for (const name of OPTIONAL_LDAP_FIELDS) {
        if (text(name)) body[name] = text(name);
      }
    }
    create.mutate(body);
  };
  return (
    <section aria-labelledby="add-connection">
      <h2 id="add-connection">Add a connection</h2>
      <form className="form" onSubmit={submit}>
        <fieldset>
          <legend>Type</legend>
          <label className="org-block-label">
            <input
              type="radio"
              name="sso-type"
              checked={type === 'saml'}
              onChange={() => setType('saml')}
            />
            SAML 2.0 identity provider (Okta, Entra ID, Keycloak, ADFS…)
          </label>
          <label className="org-block-label">
            <input
              type="radio"
              name="sso-type"
              checked={type === 'ldap'}
              onChange={() => setType('ldap')}
            />
            LDAP directory (OpenLDAP, Active Directory)
          </label>
        </fieldset>
        {field('name', 'Name', { required: true })}
        {field('email_domains', 'Email domains (comma-separated)', { required: true })}
        <fieldset>
          <legend>People signing in for the first time</legend>
          {flag('jit_provisioning', 'Create their account at their first sign-in')}
          <p className="muted">
            Their roles (choose Analyst alone for a team of viewers who must work blind):
          </p>
          <div className="org-inline-checks">
            <RoleChecks roles={jitRoles} onChange={setJitRoles} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Scopes everyone it signs in gets</legend>
          <div className="scopes">
            {ALL_SCOPES.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.has(scope)}
                  onChange={(event) => {
                    const next = new Set(scopes);
                    if (event.target.checked) next.add(scope);
                    else next.delete(scope);
                    setScopes(next);
                  }}
                />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        {area('group_scopes', 'Scopes by group (optional)', {
          hint: 'One group a line: group name, a colon, then scopes separated by spaces, e.g. "engineers: remote-viewing:write".',
        })}
        {type === 'saml' ? (
          <fieldset>
            <legend>Identity provider</legend>
            <div className="form">
              <div className="org-inline-checks" role="radiogroup" aria-label="Describe the IdP by">
                {(
                  [
                    ['xml', 'Its metadata XML'],
                    ['url', 'Its metadata URL'],
                    ['fields', 'Entity id, SSO URL and certificates'],
                  ] as const
                ).map(([value, label]) => (
                  <label key={value}>
                    <input
                      type="radio"
                      name="sso-source"
                      checked={source === value}
                      onChange={() => setSource(value)}
                    />
                    {label}
                  </label>
                ))}
              </div>
              {source === 'xml' && area('idp_metadata_xml', 'IdP metadata XML', { required: true })}
              {source === 'url' &&
                field('idp_metadata_url', 'IdP metadata URL (https)', {
                  required: true,
                  type: 'url',
                })}
              {source === 'fields' && (
                <>
                  {field('idp_entity_id', 'IdP entity id', { required: true })}
                  {field('idp_sso_url', 'IdP single sign-on URL (https)', {
                    required: true,
                    type: 'url',
                  })}
                  {area('idp_certificates', 'IdP signing certificates (PEM)', {
                    required: true,
                    hint: 'One or more PEM blocks: both the old and the new while the IdP rotates its key.',
                  })}
                </>
              )}
              {flag(
                'allow_idp_initiated',
                'Accept IdP-initiated sign-in (responses nobody asked for)',
              )}
              {field('clock_skew_seconds', 'Clock skew tolerated, seconds (default 60)', {
                type: 'number',
              })}
            </div>
          </fieldset>
        ) : (
          <fieldset>
            <legend>Directory</legend>
            <div className="form">
              {field('url', 'Directory URL (ldaps://, or ldap:// with StartTLS)', {
                required: true,
              })}
              {flag('start_tls', 'Use StartTLS on an ldap:// URL')}
              {flag(
                'allow_insecure',
                'Allow plain ldap:// without TLS (only to a directory your operator allow-listed)',
              )}
              {area('ca_certificate', 'CA certificate (PEM, optional: else the public roots)')}
              {field('bind_dn', 'Service account DN', { required: true })}
              {field('bind_password', 'Service account password', {
                required: true,
                type: 'password',
              })}
              {field('user_base_dn', 'Where people are (user base DN)', { required: true })}
              {field('user_filter', 'User filter, with {username}', { required: true })}
              {field('group_base_dn', 'Where groups are (group base DN, optional)')}
              {field('group_filter', 'Group filter, with {dn} (optional; else memberOf)')}
              {field('group_name_attribute', 'Group name attribute (default cn)')}
              {flag('nested_groups', 'Follow groups of groups')}
              {field('email_attribute', 'Email attribute (optional)')}
              {field('name_attribute', 'Name attribute (optional)')}
            </div>
          </fieldset>
        )}
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add connection'}
        </button>
      </form>
      {create.isError && <ApiError error={create.error} />}
      {create.isSuccess && (
        <p role="status">
          Connection {create.data.name} added. Its details are below
          {create.data.type === 'saml' ? ': give your IdP the SP metadata URL.' : '.'}
        </p>
      )}
    </section>
  );
}

/** "group: scope scope" lines into the API's group_scopes map. */
function parseGroupScopes(text: string): Record<string, Scope[]> {
  const groups: Record<string, Scope[]> = {};
  for (const line of text.split('\n')) {
    const match = /^\s*(.+?)\s*:\s+(.+)$/.exec(line);
    if (!match) continue;
    // Typed as the person wrote them: the API refuses an unknown scope, naming it.
    groups[match[1]!] = match[2]!.split(/[\s,]+/).filter(Boolean) as Scope[];
  }
  return groups;
}

/** PEM blocks pasted one after another. */
function splitPem(text: string): string[] {
  return (
    text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ??
    (text.trim() ? [text.trim()] : [])
  );
}

function ConnectionDetail({
  connection,
  readOnly,
  onDeleted,
}: {
  connection: SsoConnection;
  readOnly: boolean;
  onDeleted: () => void;
}) {
  const { client, profile } = useSession();
  const queryClient = useQueryClient();
  const organizationId = profile.organization_id;
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['sso-connections'] });
  const test = useMutation({
    mutationFn: () => client.ssoConnections.test(organizationId, connection.id),
  });
  const remove = useMutation({
    mutationFn: () => client.ssoConnections.delete(organizationId, connection.id),
    onSuccess: async () => {
      await refresh();
      onDeleted();
    },
  });
  return (
    <section id="connection-detail" className="org-panel" aria-labelledby="connection-heading">
      <h2 id="connection-heading" tabIndex={-1} ref={heading}>
        {connection.name} ({connection.type.toUpperCase()})
      </h2>
      <dl className="org-facts">
        <dt>Connection id</dt>
        <dd>
          <code>{connection.id}</code>
        </dd>
        {connection.type === 'saml' ? (
          <>
            <dt>SP metadata URL</dt>
            <dd>
              {connection.sp_metadata_url && (
                <CopyValue
                  value={connection.sp_metadata_url}
                  label="SP metadata URL"
                  testId="sp-metadata-url"
                />
              )}
            </dd>
            <dt>ACS URL (HTTP-POST)</dt>
            <dd>
              {connection.acs_url && (
                <CopyValue value={connection.acs_url} label="ACS URL" testId="acs-url" />
              )}
            </dd>
            <dt>SP entity id</dt>
            <dd>
              {connection.sp_entity_id && (
                <CopyValue value={connection.sp_entity_id} label="SP entity id" />
              )}
            </dd>
            <dt>IdP entity id</dt>
            <dd>{connection.idp_entity_id}</dd>
            <dt>IdP SSO URL</dt>
            <dd>{connection.idp_sso_url}</dd>
            {connection.idp_metadata_url && (
              <>
                <dt>IdP metadata URL</dt>
                <dd>
                  {connection.idp_metadata_url}
                  {connection.metadata_fetched_at &&
                    ` (read ${new Date(connection.metadata_fetched_at).toLocaleString()})`}
                </dd>
              </>
            )}
          </>
        ) : (
          <>
            <dt>Directory</dt>
            <dd>
              {connection.url}
              {connection.start_tls && ' (StartTLS)'}
            </dd>
            <dt>Service account</dt>
            <dd>{connection.bind_dn}</dd>
            <dt>People</dt>
            <dd>
              {connection.user_base_dn} {connection.user_filter}
            </dd>
            <dt>Groups</dt>
            <dd>
              {connection.group_base_dn
                ? `${connection.group_base_dn} ${connection.group_filter ?? ''}`
                : 'memberOf'}
            </dd>
          </>
        )}
        <dt>Default scopes</dt>
        <dd>{connection.default_scopes.join(', ') || 'none'}</dd>
        {Object.keys(connection.group_scopes).length > 0 && (
          <>
            <dt>Scopes by group</dt>
            <dd>
              {Object.entries(connection.group_scopes)
                .map(([group, scopes]) => `${group}: ${scopes.join(' ')}`)
                .join('; ')}
            </dd>
          </>
        )}
      </dl>
      {connection.type === 'saml' && (
        <p className="muted">
          Give your IdP the SP metadata URL, or the SP entity id as its audience and the ACS URL as
          its reply URL; responses or assertions must be signed.
        </p>
      )}
      <DomainProofs connection={connection} readOnly={readOnly} onVerified={refresh} />
      <h3>Check it</h3>
      <div className="actions">
        <button type="button" disabled={readOnly || test.isPending} onClick={() => test.mutate()}>
          {test.isPending ? 'Testing…' : 'Test connection'}
        </button>
        <ConfirmButton
          label={`Delete ${connection.name}`}
          question={`Delete ${connection.name}? Its domains sign in with passwords again.`}
          confirmLabel="Yes, delete"
          disabled={readOnly || remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      {test.isError && <ApiError error={test.error} />}
      {test.data && (
        <div role="status" data-testid="test-report">
          <p>
            <strong>
              {test.data.ok ? 'The connection works.' : 'The connection failed a check.'}
            </strong>
          </p>
          <ul className="org-checks">
            {test.data.checks.map((check) => (
              <li key={check.check} className={check.ok ? 'org-check-ok' : 'org-check-failed'}>
                {check.ok ? '✓ passed' : '✗ failed'}: {check.check}
                {check.error && ` — ${check.error}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {remove.isError && <ApiError error={remove.error} />}
      {!readOnly && <EditConnection connection={connection} onSaved={refresh} />}
    </section>
  );
}

function EditConnection({
  connection,
  onSaved,
}: {
  connection: SsoConnection;
  onSaved: () => Promise<void>;
}) {
  const { client, profile } = useSession();
  const [name, setName] = useState(connection.name);
  const [domains, setDomains] = useState(connection.email_domains.join(', '));
  const [enabled, setEnabled] = useState(connection.enabled);
  const [jit, setJit] = useState(connection.jit_provisioning);
  const [jitRoles, setJitRoles] = useState<Set<MemberRole>>(new Set(connection.jit_roles));
  const [bindPassword, setBindPassword] = useState('');
  const save = useMutation({
    mutationFn: (body: UpdateSsoConnection) =>
      client.ssoConnections.update(profile.organization_id, connection.id, body),
    onSuccess: () => onSaved(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({
      name: name.trim(),
      email_domains: splitList(domains),
      enabled,
      jit_provisioning: jit,
      jit_roles: [...jitRoles],
      ...(bindPassword ? { bind_password: bindPassword } : {}),
    });
  };
  return (
    <>
      <h3>Edit</h3>
      <form className="form" onSubmit={submit}>
        <label htmlFor="edit-sso-name">Name</label>
        <input
          id="edit-sso-name"
          required
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <label htmlFor="edit-sso-domains">Email domains (comma-separated)</label>
        <input
          id="edit-sso-domains"
          required
          value={domains}
          onChange={(event) => setDomains(event.target.value)}
        />
        <label className="org-block-label">
          <input
            type="checkbox"
            checked={enabled}
            onChange={(event) => setEnabled(event.target.checked)}
          />
          Enabled (a disabled connection signs nobody in)
        </label>
        <label className="org-block-label">
          <input type="checkbox" checked={jit} onChange={(event) => setJit(event.target.checked)} />
          Create accounts at first sign-in
        </label>
        <fieldset>
          <legend>Roles of the people it creates</legend>
          <RoleChecks roles={jitRoles} onChange={setJitRoles} labelClassName="org-block-label" />
        </fieldset>
        {connection.type === 'ldap' && (
          <>
            <label htmlFor="edit-sso-bind-password">
              New service account password (leave empty to keep it)
            </label>
            <input
              id="edit-sso-bind-password"
              type="password"
              autoComplete="off"
              value={bindPassword}
              onChange={(event) => setBindPassword(event.target.value)}
            />
          </>
        )}
        <button type="submit" disabled={save.isPending || jitRoles.size === 0}>
          Save changes
        </button>
      </form>
      {save.isError && <ApiError error={save.error} />}
      {save.isSuccess && <p role="status">Saved.</p>}
    </>
  );
}

/**
 * The connection's email domains and their proof: a domain signs nobody in
 * until it publishes its TXT record, which "Verify now" looks up (the service
 * also does every hour).
 */
function DomainProofs({
  connection,
  readOnly,
  onVerified,
}: {
  connection: SsoConnection;
  readOnly: boolean;
  onVerified: () => Promise<void>;
}) {
  const { client, profile } = useSession();
  const verify = useMutation({
    mutationFn: () => client.ssoConnections.verifyDomains(profile.organization_id, connection.id),
    onSuccess: () => onVerified(),
  });
  const pending = connection.domains.filter((domain) => domain.status === 'pending');
  const notFound = verify.data?.domains.filter((domain) => domain.status === 'pending') ?? [];
  return (
    <>
      <h3>Email domains</h3>
      <p className="muted">
        A domain signs people in only once it is verified: publish each pending domain&apos;s TXT
        record in its DNS, then verify.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Domain</th>
            <th scope="col">Status</th>
            <th scope="col">TXT record name</th>
            <th scope="col">TXT record value</th>
          </tr>
        </thead>
        <tbody>
          {connection.domains.map(({ domain, status, verification }) => (
            <tr key={domain}>
              <th scope="row">{domain}</th>
              <td>{status}</td>
              <td>
                <CopyValue value={verification.name} label={`record name for ${domain}`} />
              </td>
              <td>
                <CopyValue value={verification.value} label={`record value for ${domain}`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button
          type="button"
          disabled={readOnly || verify.isPending || pending.length === 0}
          onClick={() => verify.mutate()}
        >
          {verify.isPending ? 'Verifying…' : 'Verify now'}
        </button>
      </div>
      {verify.isError && <ApiError error={verify.error} />}
      {verify.data && (
        <p role="status">
          {notFound.length === 0
            ? 'Every domain is verified.'
            : `Not found yet: ${notFound.map((domain) => domain.domain).join(', ')}. DNS changes can take a while to show.`}
        </p>
      )}
    </>
  );
}
