import type { CreateWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../api-error';
import { useSession } from '../auth/session';
import { CopyValue } from '../components/copy-value';
import { Pager, useCursorPages } from '../components/cursor-pages';

/** A secret the API shows once: after creating an endpoint or rotating its secret. */
interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

/**
 * List, create, edit and test endpoints, rotate their secrets, read their
 * deliveries with each attempt, retry one, replay a range of events.
 */
export function WebhooksPage() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const endpoints = useQuery({
    queryKey: ['webhooks', tokens.mode],
    queryFn: async () => {
      const all: WebhookEndpoint[] = [];
      for await (const endpoint of client.webhooks.list()) all.push(endpoint);
      return all;
    },
  });
  const sendTest = useMutation({
    mutationFn: (id: string) => client.webhooks.test(id, { event_type: 'session.completed' }),
    onSuccess: (delivery) => {
      setSelected(delivery.webhook_id);
      return queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] });
    },
  });
  const rotate = useMutation({
    mutationFn: (id: string) => client.webhooks.rotateSecret(id, {}),
    onSuccess: (endpoint) => {
      setSecret({ url: endpoint.url, secret: endpoint.secret, rotated: true });
      return queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const selectedEndpoint = endpoints.data?.find((endpoint) => endpoint.webhook_id === selected);
  return (
    <>
      <h1>Webhooks</h1>
      <CreateEndpoint onCreated={setSecret} />
      {secret && <SecretShownOnce shown={secret} />}
      <section aria-labelledby="endpoints">
        <h2 id="endpoints">Endpoints</h2>
        {endpoints.isPending && <p>Loading…</p>}
        {endpoints.isError && <ApiError error={endpoints.error} />}
        {sendTest.isError && <ApiError error={sendTest.error} />}
        {rotate.isError && <ApiError error={rotate.error} />}
        {sendTest.isSuccess && (
          <p role="status">Test event queued: delivery {sendTest.data.delivery_id}.</p>
        )}
        {endpoints.data?.length === 0 && (
          <p>No endpoints yet. Add one above to be told when your sessions and analyses change.</p>
        )}
        {endpoints.data && endpoints.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {endpoints.data.map((endpoint) => (
                <tr key={endpoint.webhook_id}>
                  <th scope="row">
                    <code>{endpoint.url}</code>
                  </th>
                  <td>{endpoint.events.join(', ')}</td>
                  <td>
                    {endpoint.status}
                    {endpoint.status_reason && (
                      <span className="muted"> ({endpoint.status_reason})</span>
                    )}
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      disabled={sendTest.isPending}
                      onClick={() => sendTest.mutate(endpoint.webhook_id)}
                    >
                      Send test event <span className="visually-hidden">to {endpoint.url}</span>
                    </button>
                    <button type="button" onClick={() => setEditing(endpoint)}>
                      Edit <span className="visually-hidden">{endpoint.url}</span>
                    </button>
                    <button
                      type="button"
                      aria-pressed={selected === endpoint.webhook_id}
                      onClick={() => setSelected(endpoint.webhook_id)}
                    >
                      Deliveries <span className="visually-hidden">of {endpoint.url}</span>
                    </button>
                    <button
                      type="button"
                      disabled={rotate.isPending}
                      onClick={() => rotate.mutate(endpoint.webhook_id)}
                    >
                      Rotate secret <span className="visually-hidden">of {endpoint.url}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {editing && (
        <EditEndpoint
          key={`edit-${editing.webhook_id}`}
          endpoint={editing}
          onDone={() => setEditing(null)}
        />
      )}
      {selectedEndpoint && <Deliveries endpoint={selectedEndpoint} />}
      {selectedEndpoint && (
        <Replay key={`replay-${selectedEndpoint.webhook_id}`} endpoint={selectedEndpoint} />
      )}
    </>
  );
}

function CreateEndpoint({ onCreated }: { onCreated: (shown: ShownSecret) => void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const create = useMutation({
    mutationFn: (body: CreateWebhookEndpoint) => client.webhooks.create(body),
    onSuccess: (endpoint) => {
      onCreated({ url: endpoint.url, secret: endpoint.secret, rotated: false });
      setUrl('');
      setEvents('*');
      return queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ url: url.trim(), events: eventList(events) });
  };
  return (
    <section aria-labelledby="create-endpoint">
      <h2 id="create-endpoint">Add an endpoint</h2>
      <form onSubmit={submit} className="form">
        <label htmlFor="webhook-url">Endpoint URL (https)</label>
        <input
          id="webhook-url"
          type="url"
          required
          placeholder="https://example.com/webhooks"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
        <label htmlFor="webhook-events">Events</label>
        <input
          id="webhook-events"
          required
          aria-describedby="webhook-events-help"
          value={events}
          onChange={(event) => setEvents(event.target.value)}
        />
        <p id="webhook-events-help" className="muted">
          Comma-separated event types, such as <code>session.completed, analysis.failed</code>, or{' '}
          <code>*</code> for every event.
        </p>
        <button type="submit" disabled={create.isPending}>
          Add endpoint
        </button>
      </form>
      {create.isError && <ApiError error={create.error} />}
    </section>
  );
}

function SecretShownOnce({ shown }: { shown: ShownSecret }) {
  return (
    <div className="created" role="status">
      <p>
        {shown.rotated ? 'The new signing secret' : 'The signing secret'} of{' '}
        <code>{shown.url}</code>. Copy it now: it is not shown again.
      </p>
      <CopyValue value={shown.secret} label="secret" testId="webhook-secret" />
    </div>
  );
}

const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
type DeliveryState = (typeof DELIVERY_STATES)[number];

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { client, tokens } = useSession();
  const [state, setState] = useState<DeliveryState | ''>('');
  const pages = useCursorPages(
    ['webhook-deliveries', tokens.mode, endpoint.webhook_id, state],
    (cursor) =>
      client.webhooks
        .deliveries(endpoint.webhook_id, { per_page: 20, ...(state ? { state } : {}) })
        .page(cursor),
    {
      // Keep reading while a delivery is still on its way.
      refetchInterval: (page) =>
        page?.data.some((delivery) => delivery.state === 'pending') ? 1000 : false,
    },
  );
  const { query } = pages;
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">
        Deliveries to <code>{endpoint.url}</code>
      </h2>
      <div className="filters">
        <label htmlFor="delivery-state">State</label>
        <select
          id="delivery-state"
          value={state}
          onChange={(event) => setState(event.target.value as DeliveryState | '')}
        >
          <option value="">Any</option>
          {DELIVERY_STATES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void query.refetch()}>
          Refresh deliveries
        </button>
      </div>
      {query.data && pages.items.length === 0 && (
        <p>
          {state ? `No ${state} deliveries.` : 'No deliveries yet. Send a test event to see one.'}
        </p>
      )}
      {pages.items.length > 0 && (
        <ul className="deliveries" aria-label="Deliveries">
          {pages.items.map((delivery) => (
            <DeliveryItem key={delivery.delivery_id} delivery={delivery} />
          ))}
        </ul>
      )}
      <Pager pages={pages} label="Deliveries" />
    </section>
  );
}

function DeliveryItem({ delivery }: { delivery: WebhookDelivery }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => client.webhooks.retryDelivery(delivery.webhook_id, delivery.delivery_id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  return (
    <li data-testid="delivery">
      <h3>
        {delivery.event_type} <span className="muted">({delivery.origin})</span>: {delivery.state}
      </h3>
      <p className="muted">
        {new Date(delivery.created_at).toLocaleString()} · attempt {delivery.attempt_count} of{' '}
        {delivery.max_attempts}
        {delivery.next_attempt_at &&
          ` · next attempt ${new Date(delivery.next_attempt_at).toLocaleString()}`}
      </p>
      {delivery.state !== 'pending' && (
        <button type="button" disabled={retry.isPending} onClick={() => retry.mutate()}>
          Retry now <span className="visually-hidden">{delivery.delivery_id}</span>
        </button>
      )}
      {retry.isError && <ApiError error={retry.error} />}
      {delivery.attempts.length > 0 && (
        <table>
          <caption className="visually-hidden">Attempts of {delivery.delivery_id}</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Started</th>
              <th scope="col">Status code</th>
              <th scope="col">Latency</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((attempt) => (
              <tr key={attempt.attempt}>
                <th scope="row">{attempt.attempt}</th>
                <td>{new Date(attempt.started_at).toLocaleString()}</td>
                <td>{attempt.status_code ?? 'none'}</td>
                <td>{attempt.latency_ms} ms</td>
                <td>{attempt.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

/** Comma-separated event types as the API takes them. */
function eventList(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function EditEndpoint({ endpoint, onDone }: { endpoint: WebhookEndpoint; onDone: () => void }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  const [events, setEvents] = useState(endpoint.events.join(', '));
  const [active, setActive] = useState(endpoint.status !== 'disabled');
  const update = useMutation({
    mutationFn: () =>
      client.webhooks.update(endpoint.webhook_id, {
        url: url.trim(),
        events: eventList(events),
        active,
      }),
    onSuccess: () => {
      onDone();
      void queryClient.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate();
  };
  return (
    <section aria-labelledby="edit-endpoint">
      <h2 id="edit-endpoint">Edit endpoint</h2>
      <form onSubmit={submit} className="form">
        <label htmlFor="edit-url">Endpoint URL (https)</label>
        <input
          id="edit-url"
          type="url"
          required
          value={url}
          onChange={(event) => setUrl(event.target.value)}
        />
        <label htmlFor="edit-events">Events</label>
        <input
          id="edit-events"
          required
          value={events}
          onChange={(event) => setEvents(event.target.value)}
        />
        <label>
          <input
            type="checkbox"
            checked={active}
            onChange={(event) => setActive(event.target.checked)}
          />
          Active (deliveries are sent)
        </label>
        <div className="actions">
          <button type="submit" disabled={update.isPending}>
            Save endpoint
          </button>
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
      {update.isError && <ApiError error={update.error} />}
    </section>
  );
}

/** A time from a datetime-local field (the browser's zone) as the API's ISO 8601. */
function isoOf(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

/** Sends the events of a time range to the endpoint again (after an outage at the receiver). */
function Replay({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [includeDelivered, setIncludeDelivered] = useState(false);
  const replay = useMutation({
    mutationFn: (dryRun: boolean) =>
      client.webhooks.replay({
        webhook_id: endpoint.webhook_id,
        from: isoOf(from),
        to: isoOf(to),
        include_delivered: includeDelivered,
        dry_run: dryRun,
      }),
    onSuccess: (result) =>
      result.dry_run
        ? undefined
        : queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    replay.mutate(false);
  };
  return (
    <section aria-labelledby="replay">
      <h2 id="replay">Replay events</h2>
      <p className="muted">
        Sends the events of a time range to this endpoint again, each with its original event id.
      </p>
      <form onSubmit={submit} className="form">
        <label htmlFor="replay-from">From</label>
        <input
          id="replay-from"
          type="datetime-local"
          required
          value={from}
          onChange={(event) => setFrom(event.target.value)}
        />
        <label htmlFor="replay-to">To (optional)</label>
        <input
          id="replay-to"
          type="datetime-local"
          value={to}
          onChange={(event) => setTo(event.target.value)}
        />
        <label>
          <input
            type="checkbox"
            checked={includeDelivered}
            onChange={(event) => setIncludeDelivered(event.target.checked)}
          />
          Also events the endpoint already acknowledged
        </label>
        <div className="actions">
          <button
            type="button"
            disabled={replay.isPending || !from}
            onClick={() => replay.mutate(true)}
          >
            Count only
          </button>
          <button type="submit" disabled={replay.isPending}>
            Replay
          </button>
        </div>
      </form>
      {replay.isError && <ApiError error={replay.error} />}
      {replay.data && (
        <p role="status">
          {replay.data.dry_run ? 'Would send' : 'Sending'} {replay.data.scheduled} of{' '}
          {replay.data.matched} matching events
          {replay.data.skipped_acknowledged > 0 &&
            ` (${replay.data.skipped_acknowledged} already acknowledged)`}
          {replay.data.skipped_pending > 0 && ` (${replay.data.skipped_pending} still pending)`}.
        </p>
      )}
    </section>
  );
}
