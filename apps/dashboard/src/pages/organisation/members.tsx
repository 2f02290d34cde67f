import type { Analyst, AnalystFilters, CreateAnalyst } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { CopyValue } from '../../components/copy-value';
import { Pager, useCursorPages } from '../../components/cursor-pages';
import {
  ConfirmButton,
  type MemberRole,
  percent,
  ReadOnlyInTestMode,
  RoleChecks,
  ROLES,
  useFocusOnMount,
} from './shared';

type Status = NonNullable<AnalystFilters['status']>;
const STATUSES: Status[] = ['active', 'invited', 'disabled'];

/** An invitation link the API shows once: after adding someone, or re-inviting them. */
interface ShownInvitation {
  name: string;
  url: string;
  renewed: boolean;
}

/** The organisation's people: add (password or invitation), roles, disable, re-invite, track records. */
export function MembersPage() {
  const { client, tokens } = useSession();
  const readOnly = tokens.mode === 'test';
  const [role, setRole] = useState<MemberRole | ''>('');
  const [status, setStatus] = useState<Status | ''>('');
  const [selected, setSelected] = useState<string | null>(null);
  const [invitation, setInvitation] = useState<ShownInvitation | null>(null);
  const filters: AnalystFilters = {
    ...(role ? { role } : {}),
    ...(status ? { status } : {}),
  };
  const pages = useCursorPages(['members', tokens.mode, filters], (cursor) =>
    client.analysts.list(filters).page(cursor),
  );
  const filtered = role !== '' || status !== '';
  return (
    <>
      <h1>Members</h1>
      {readOnly && (
        <ReadOnlyInTestMode what="your organisation's people (the same in both modes)" />
      )}
      <AddMember readOnly={readOnly} onInvited={setInvitation} />
      {invitation && <InvitationShownOnce shown={invitation} />}
      <section aria-labelledby="people">
        <h2 id="people">People</h2>
        <div className="filters">
          <label>
            Role
            <select
              value={role}
              onChange={(event) => setRole(event.target.value as MemberRole | '')}
            >
              <option value="">Any role</option>
              {ROLES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
          <label>
            Status
            <select value={status} onChange={(event) => setStatus(event.target.value as Status)}>
              <option value="">Any status</option>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        </div>
        {pages.query.isSuccess && pages.items.length === 0 && (
          <p>
            {filtered
              ? 'Nobody matches these filters. Choose "Any role" and "Any status" to see everyone.'
              : 'No members yet. Add someone above: an analyst to do blind work, a judge to rank it.'}
          </p>
        )}
        {pages.items.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Roles</th>
                <th scope="col">Status</th>
                <th scope="col">Signs in with</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pages.items.map((member) => (
                <tr key={member.analyst_id}>
                  <th scope="row">{member.name}</th>
                  <td>{member.email}</td>
                  <td>{member.roles.join(', ')}</td>
                  <td>{member.status}</td>
                  <td>{member.identity_source}</td>
                  <td>
                    {member.last_sign_in_at
                      ? new Date(member.last_sign_in_at).toLocaleString()
                      : 'never'}
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-expanded={selected === member.analyst_id}
                      aria-controls="member-detail"
                      onClick={() =>
                        setSelected(selected === member.analyst_id ? null : member.analyst_id)
                      }
                    >
                      Manage <span className="visually-hidden">{member.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <Pager pages={pages} label="Members" />
      </section>
      {selected && (
        <MemberDetail
          key={selected}
          id={selected}
          readOnly={readOnly}
          onInvited={setInvitation}
          onClose={() => setSelected(null)}
        />
      )}
    </>
  );
}

function AddMember({
  readOnly,
  onInvited,
}: {
  readOnly: boolean;
  onInvited: (shown: ShownInvitation | null) => void;
}) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [roles, setRoles] = useState<Set<MemberRole>>(new Set(['analyst']));
  const [how, setHow] = useState<'invite' | 'password'>('invite');
  const [password, setPassword] = useState('');
  const create = useMutation({
    mutationFn: (body: CreateAnalyst) => client.analysts.create(body),
    onSuccess: (created) => {
      onInvited(
        created.invitation_url
          ? { name: created.name, url: created.invitation_url, renewed: false }
          : null,
      );
      setName('');
      setEmail('');
      setPassword('');
      return queryClient.invalidateQueries({ queryKey: ['members'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      email,
      roles: [...roles],
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(how === 'password' ? { password } : {}),
    });
  };
  return (
    <section aria-labelledby="add-member">
      <h2 id="add-member">Add a member</h2>
      <form onSubmit={submit} className="form">
        <fieldset disabled={readOnly}>
          <legend className="visually-hidden">New member</legend>
          <div className="form">
            <label htmlFor="member-name">Name (optional)</label>
            <input
              id="member-name"
              maxLength={200}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
            <label htmlFor="member-email">Email</label>
            <input
              id="member-email"
              type="email"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
            <RoleChoice legend="Roles" roles={roles} onChange={setRoles} />
            <fieldset>
              <legend>How they sign in</legend>
              <label>
                <input
                  type="radio"
                  name="member-access"
                  checked={how === 'invite'}
                  onChange={() => setHow('invite')}
                />
                Send an invitation link (they choose their password; SSO works too)
              </label>
              <label>
                <input
                  type="radio"
                  name="member-access"
                  checked={how === 'password'}
                  onChange={() => setHow('password')}
                />
                Set a password now
              </label>
            </fieldset>
            {how === 'password' && (
              <>
                <label htmlFor="member-password">Password (at least 12 characters)</label>
                <input
                  id="member-password"
                  type="password"
                  autoComplete="new-password"
                  required
                  minLength={12}
                  maxLength={1024}
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                />
              </>
            )}
            <button type="submit" disabled={create.isPending || roles.size === 0}>
              {create.isPending ? 'Adding…' : 'Add member'}
            </button>
          </div>
        </fieldset>
      </form>
      {create.isError && <ApiError error={create.error} />}
      {create.isSuccess && !create.data.invitation_url && (
        <p role="status">{create.data.name} was added and can sign in with their password now.</p>
      )}
    </section>
  );
}

function InvitationShownOnce({ shown }: { shown: ShownInvitation }) {
  return (
    <div className="created" role="status">
      <p>
        {shown.renewed ? 'A new invitation link' : 'The invitation link'} for{' '}
        <strong>{shown.name}</strong>. Send it to them; it works for 7 days. Copy it now: it is not
        shown again.
        {shown.renewed && ' Their earlier link no longer works.'}
      </p>
      <CopyValue value={shown.url} label="invitation link" testId="invitation-url" />
    </div>
  );
}

function RoleChoice({
  legend,
  roles,
  onChange,
}: {
  legend: string;
  roles: Set<MemberRole>;
  onChange: (roles: Set<MemberRole>) => void;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      <RoleChecks roles={roles} onChange={onChange} labelClassName="org-block-label" />
      {roles.size === 0 && <p className="muted">Choose at least one role.</p>}
    </fieldset>
  );
}

/** One member: their track record, roles, status and invitation. */
function MemberDetail({
  id,
  readOnly,
  onInvited,
  onClose,
}: {
  id: string;
  readOnly: boolean;
  onInvited: (shown: ShownInvitation | null) => void;
  onClose: () => void;
}) {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const heading = useFocusOnMount<HTMLHeadingElement>();
  const member = useQuery({
    queryKey: ['members', tokens.mode, 'detail', id],
    queryFn: () => client.analysts.get(id),
  });
  const [roles, setRoles] = useState<Set<MemberRole>>(new Set());
  useEffect(() => {
    if (member.data) setRoles(new Set(member.data.roles));
  }, [member.data]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['members'] });
  const update = useMutation({
    mutationFn: (body: Parameters<typeof client.analysts.update>[1]) =>
      client.analysts.update(id, body),
    onSuccess: refresh,
  });
  const disable = useMutation({
    mutationFn: () => client.analysts.disable(id),
    onSuccess: refresh,
  });
  const reinvite = useMutation({
    mutationFn: () => client.analysts.reinvite(id),
    onSuccess: (created) => {
      if (created.invitation_url) {
        onInvited({ name: created.name, url: created.invitation_url, renewed: true });
      }
      return refresh();
    },
  });
  const saveRoles = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ roles: [...roles] });
  };
  const data = member.data;
  return (
    <section id="member-detail" className="org-panel" aria-labelledby="member-detail-heading">
      <h2 id="member-detail-heading" tabIndex={-1} ref={heading}>
        {data ? data.name : 'Member'}
      </h2>
      {member.isPending && <p>Loading…</p>}
      {member.isError && <ApiError error={member.error} />}
      {data && (
        <>
          <dl className="org-facts">
            <dt>Email</dt>
            <dd>{data.email}</dd>
            <dt>Member id</dt>
            <dd>
              <code>{data.analyst_id}</code>
            </dd>
            <dt>Status</dt>
            <dd data-testid="member-status">{data.status}</dd>
            <dt>Roles</dt>
            <dd data-testid="member-roles">{data.roles.join(', ')}</dd>
            <dt>Added</dt>
            <dd>{new Date(data.created_at).toLocaleString()}</dd>
            {data.invitation_expires_at && (
              <>
                <dt>Invitation expires</dt>
                <dd>{new Date(data.invitation_expires_at).toLocaleString()}</dd>
              </>
            )}
          </dl>
          <TrackRecord member={data} />
          <h3>Roles</h3>
          <form className="form" onSubmit={saveRoles}>
            <fieldset disabled={readOnly}>
              <legend className="visually-hidden">Change roles</legend>
              <div className="form">
                <RoleChoice legend={`Roles of ${data.name}`} roles={roles} onChange={setRoles} />
                <button type="submit" disabled={update.isPending || roles.size === 0}>
                  Save roles
                </button>
              </div>
            </fieldset>
          </form>
          {update.isSuccess && <p role="status">Saved: {update.data.roles.join(', ')}.</p>}
          {update.isError && <ApiError error={update.error} />}
          <h3>Access</h3>
          <div className="actions">
            {data.status === 'invited' && (
              <button
                type="button"
                disabled={readOnly || reinvite.isPending}
                onClick={() => reinvite.mutate()}
              >
                Send a new invitation link
              </button>
            )}
            {data.status === 'disabled' ? (
              <button
                type="button"
                disabled={readOnly || update.isPending}
                onClick={() => update.mutate({ disabled: false })}
              >
                Enable {data.name}
              </button>
            ) : (
              <ConfirmButton
                label={`Disable ${data.name}`}
                question={`Disable ${data.name}? They cannot sign in and their open assignments go to others; their history stays.`}
                confirmLabel="Yes, disable"
                disabled={readOnly || disable.isPending}
                onConfirm={() => disable.mutate()}
              />
            )}
            <button type="button" onClick={onClose}>
              Close
            </button>
          </div>
          {disable.isSuccess && <p role="status">{data.name} is disabled.</p>}
          {disable.isError && <ApiError error={disable.error} />}
          {reinvite.isError && <ApiError error={reinvite.error} />}
        </>
      )}
    </section>
  );
}

/** Their judged trials (the detail answer has them; a list row does not). */
function TrackRecord({ member }: { member: Analyst }) {
  const record = member.track_record as Analyst['track_record'] | undefined;
  if (!record) return null;
  const rate = record.hit_rate;
  return (
    <>
      <h3>Track record</h3>
      <p data-testid="track-record-summary">{record.summary}</p>
      {record.trials > 0 && (
        <dl className="org-facts">
          <dt>Judged trials</dt>
          <dd>
            {record.trials} ({record.hits} hits)
          </dd>
          <dt>Hit rate</dt>
          <dd>
            {percent(rate.value)}, 95 % interval {percent(rate.ci_low)} – {percent(rate.ci_high)}
          </dd>
          <dt>Chance</dt>
          <dd>
            {percent(rate.baseline)} (p = {rate.p_value.toPrecision(3)})
          </dd>
          {record.saic_accuracy !== null && (
            <>
              <dt>SAIC accuracy</dt>
              <dd>{percent(record.saic_accuracy)}</dd>
            </>
          )}
          {record.saic_reliability !== null && (
            <>
              <dt>SAIC reliability</dt>
              <dd>{percent(record.saic_reliability)}</dd>
            </>
          )}
          <dt>Evidence</dt>
          <dd>
            {record.evidence === 'track_record'
              ? 'established: the record weighs their work'
              : 'too few trials: their work is weighed at chance'}
          </dd>
        </dl>
      )}
    </>
  );
}
