import type { ApiKey, CreateApiKey } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError } from '../api-error';
import type { Mode } from '../auth/oauth';
import { useSession } from '../auth/session';
import { CopyValue } from '../components/copy-value';
import { ALL_SCOPES, type Scope } from '../scopes';

/** List, create (the key shown once), rotate with an overlap and revoke API keys. */
export function ApiKeysPage() {
  const { client, tokens, switchMode } = useSession();
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['api-keys', tokens.mode],
    queryFn: async () => {
      const all: ApiKey[] = [];
      for await (const key of client.apiKeys.list()) all.push(key);
      return all;
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => client.apiKeys.revoke(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const active = keys.data?.filter((key) => key.revoked_at === null) ?? [];
  return (
    <>
      <h1>API keys</h1>
      <CreateKey />
      {rotating && <RotateKey apiKey={rotating} onClose={() => setRotating(null)} />}
      <section aria-labelledby="keys">
        <h2 id="keys">Your {tokens.mode}-mode keys</h2>
        <p>
          A key reaches the data of its own mode only, and is listed in that mode.{' '}
          <button type="button" onClick={() => switchMode(otherMode(tokens.mode))}>
            Show the {otherMode(tokens.mode)}-mode keys
          </button>
        </p>
        {keys.isPending && <p>Loading…</p>}
        {keys.isError && <ApiError error={keys.error} />}
        {revoke.isError && <ApiError error={revoke.error} />}
        {keys.data && active.length === 0 && (
          <p>No active {tokens.mode}-mode keys. Create one above to call the API from your code.</p>
        )}
        {active.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Mode</th>
                <th scope="col">Scopes</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((key) => (
                <tr key={key.id}>
                  <th scope="row">{key.name}</th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.mode}</td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>
                    {key.expires_at ? new Date(key.expires_at).toLocaleDateString() : 'never'}
                  </td>
                  <td>
                    {key.last_used_at ? new Date(key.last_used_at).toLocaleString() : 'never'}
                  </td>
                  <td className="actions">
                    <button type="button" onClick={() => setRotating(key)}>
                      Rotate <span className="visually-hidden">{key.name}</span>
                    </button>
                    <button
                      type="button"
                      className="danger"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(key.id)}
                    >
                      Revoke <span className="visually-hidden">{key.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

function CreateKey() {
  const { client, tokens, switchMode } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<Mode>(tokens.mode);
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(['remote-viewing:read']));
  const [expires, setExpires] = useState('');
  const create = useMutation({
    mutationFn: (body: CreateApiKey) => client.apiKeys.create(body),
    onSuccess: () => {
      setName('');
      return queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      name,
      mode,
      scopes: [...scopes],
      expires_at: expires ? new Date(`${expires}T23:59:59Z`).toISOString() : null,
    });
  };
  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  return (
    <section aria-labelledby="create">
      <h2 id="create">Create a key</h2>
      <form onSubmit={submit} className="form">
        <label htmlFor="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <fieldset>
          <legend>Mode</legend>
          {(['test', 'live'] as Mode[]).map((value) => (
            <label key={value}>
              <input
                type="radio"
                name="key-mode"
                value={value}
                checked={mode === value}
                onChange={() => setMode(value)}
              />
              {value === 'live' ? 'Live' : 'Test'}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Scopes</legend>
          <div className="scopes">
            {ALL_SCOPES.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  checked={scopes.has(scope)}
                  onChange={(event) => toggle(scope, event.target.checked)}
                />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        <label htmlFor="key-expires">Expires (optional)</label>
        <input
          id="key-expires"
          type="date"
          value={expires}
          onChange={(event) => setExpires(event.target.value)}
        />
        <button type="submit" disabled={create.isPending || scopes.size === 0}>
          Create key
        </button>
      </form>
      {create.isError && <ApiError error={create.error} />}
      {create.data && (
        <KeyShownOnce
          apiKey={create.data}
          intro={
            <>
              Your new {create.data.mode} key <strong>{create.data.name}</strong>.
              {create.data.mode !== tokens.mode && (
                <>
                  {' '}
                  It is listed in {create.data.mode} mode and reaches {create.data.mode}-mode data
                  only; once you have copied it,{' '}
                  <button
                    type="button"

                    onClick={() => switchMode(create.data.mode)}
                  >
                    switch to {create.data.mode} mode
                  </button>
                  .
                </>
              )}
            </>
          }
        />
      )}
    </section>
  );
}

function otherMode(mode: Mode): Mode {
  return mode === 'live' ? 'test' : 'live';
}

/** Rotation periods offered; the API takes any number of seconds (default a day). */
const OVERLAPS = [
  { seconds: 0, label: 'Stop the old key now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 24 * 3600, label: '24 hours' },
  { seconds: 7 * 24 * 3600, label: '7 days' },
];

/**
 * A new key with the same name, mode and scopes; the old one keeps working
 * for the overlap, so deployments can switch without a failed request.
 */
function RotateKey({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState(24 * 3600);
  const rotate = useMutation({
    mutationFn: () => client.apiKeys.rotate(apiKey.id, { overlap_seconds: overlap }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rotate.mutate();
  };
  const previous = rotate.data?.previous;
  const oldUntil = previous && !previous.revoked_at ? previous.expires_at : null;
  return (
    <section aria-labelledby="rotate">
      <h2 id="rotate">Rotate {apiKey.name}</h2>
      {!rotate.data && (
        <form onSubmit={submit} className="form">
          <label htmlFor="rotate-overlap">Keep the old key working for</label>
          <select
            id="rotate-overlap"
            value={overlap}
            onChange={(event) => setOverlap(Number(event.target.value))}
          >
            {OVERLAPS.map((option) => (
              <option key={option.seconds} value={option.seconds}>
                {option.label}
              </option>
            ))}
          </select>
          <div className="actions">
            <button type="submit" disabled={rotate.isPending}>
              Rotate key
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {rotate.isError && <ApiError error={rotate.error} />}
      {rotate.data && (
        <>
          <KeyShownOnce
            apiKey={rotate.data}
            intro={
              <>
                The new key for <strong>{rotate.data.name}</strong>.{' '}
                {oldUntil
                  ? `The old key (${rotate.data.previous.prefix}…) works until ${new Date(oldUntil).toLocaleString()}.`
                  : 'The old key has stopped working.'}
              </>
            }
          />
          <button type="button" onClick={onClose}>
            Done
          </button>
        </>
      )}
    </section>
  );
}

/** A secret key the API shows once, with a copy button. */
function KeyShownOnce({ apiKey, intro }: { apiKey: { key: string }; intro: ReactNode }) {
  return (
    <div className="created" role="status">
      <p>{intro} Copy it now: it is not shown again.</p>
      <CopyValue value={apiKey.key} label="key" testId="new-key" />
    </div>
  );
}
