import type { CreatedScimToken } from '@sas/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { CopyValue } from '../../components/copy-value';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import { ConfirmButton, ReadOnlyInTestMode } from './shared';

/** The API's limit on a token's name. */
const MAX_NAME_LENGTH = 100;

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * The bearer tokens an identity provider (Okta, Microsoft Entra ID) calls the
 * SCIM service with to provision people and groups: the base URL to give it,
 * the tokens (each shown once, when issued), revoking one. Like the
 * connections they are the same in both modes and change in live mode only.
 */
export function ScimTokens({ readOnly }: { readOnly: boolean }) {
  const { client, tokens, profile } = useSession();
  const queryClient = useQueryClient();
  const organizationId = profile.organization_id;
  const baseUrl = `${location.origin}/scim/v2`;
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<CreatedScimToken | null>(null);
  const pages = useCursorPages(['scim-tokens', tokens.mode, organizationId], (cursor) =>
    client.scimTokens.list(organizationId).page(cursor),
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['scim-tokens'] });
  const create = useMutation({
    mutationFn: (tokenName: string) =>
      client.scimTokens.create(organizationId, { name: tokenName }),
    onSuccess: (token) => {
      setIssued(token);
      setName('');
      return refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => client.scimTokens.revoke(organizationId, id),
    onSuccess: (_, id) => {
      if (issued?.id === id) setIssued(null);
      return refresh();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <section aria-labelledby="scim">
      <h2 id="scim">SCIM provisioning</h2>
      <p className="muted">
        Let your identity provider (Okta, Microsoft Entra ID) create, update and remove your people
        and groups over SCIM 2.0: give it the base URL below and a token issued here.
      </p>
      <dl className="org-facts">
        <dt>SCIM base URL</dt>
        <dd>
          <CopyValue value={baseUrl} label="SCIM base URL" testId="scim-base-url" />
        </dd>
      </dl>
      {readOnly ? (
        <ReadOnlyInTestMode what="your SCIM tokens (the same in both modes)" />
      ) : (
        <>
          <h3>Issue a token</h3>
          <form className="form" onSubmit={submit}>
            <label htmlFor="scim-token-name">Token name</label>
            <input
              id="scim-token-name"
              required
              maxLength={MAX_NAME_LENGTH}
              aria-describedby="scim-token-name-help"
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
            <span id="scim-token-name-help" className="muted">
              What it is for, usually the identity provider that holds it: Okta, Entra ID.
            </span>
            <button type="submit" disabled={create.isPending}>
              {create.isPending ? 'Issuing…' : 'Issue token'}
            </button>
          </form>
          {create.isError && <ApiError error={create.error} />}
        </>
      )}
      {issued && (
        <div className="created" role="status">
          <p>
            The SCIM token <strong>{issued.name}</strong>. Copy it now and paste it into your
            identity provider with the base URL: <strong>you will not see it again</strong> (only a
            hash of it is kept). If it is lost, revoke it and issue another.
          </p>
          <CopyValue value={issued.token} label="SCIM token" testId="scim-token" />
          <div className="actions">
            <button type="button" onClick={() => setIssued(null)}>
              Done, I have stored it
            </button>
          </div>
        </div>
      )}
      <h3>Tokens</h3>
      {pages.query.isSuccess && pages.items.length === 0 && (
        <p>No SCIM tokens yet. Issue one above to let your identity provider provision people.</p>
      )}
      {revoke.isError && <ApiError error={revoke.error} />}
      {pages.items.length > 0 && (
        <table>
          <caption className="visually-hidden">SCIM tokens, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Revoked</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((token) => (
              <tr key={token.id}>
                <th scope="row">{token.name}</th>
                <td>{when(token.created_at)}</td>
                <td>{token.last_used_at ? when(token.last_used_at) : 'never'}</td>
                <td>{token.revoked_at ? when(token.revoked_at) : 'no (it works)'}</td>
                <td>
                  {!token.revoked_at && (
                    <ConfirmButton
                      label={`Revoke ${token.name}`}
                      question={`Revoke ${token.name}? Your identity provider's SCIM calls with it stop at once.`}
                      confirmLabel="Yes, revoke"
                      disabled={readOnly || revoke.isPending}
                      onConfirm={() => revoke.mutate(token.id)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager pages={pages} label="SCIM tokens" />
    </section>
  );
}
