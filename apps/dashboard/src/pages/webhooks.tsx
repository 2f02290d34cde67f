import type { CreateWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../api-error';
import { useSession } from '../auth/session';

/** A secret the API shows once: after creating an endpoint or rotating its secret. */
interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}

/** List, create, test endpoints, rotate their secrets and read their deliveries. */
export function WebhooksPage() {
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
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
      {selectedEndpoint && <Deliveries endpoint={selectedEndpoint} />}
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
    create.mutate({
      url: url.trim(),
      events: events
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    });
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
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="created" role="status">
      <p>
        {shown.rotated ? 'The new signing secret' : 'The signing secret'} of{' '}
        <code>{shown.url}</code>. Copy it now: it is not shown again.
      </p>
      <code className="secret" data-testid="webhook-secret">
        {shown.secret}
      </code>{' '}
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard.writeText(shown.secret).then(() => setCopied(shown.secret))
        }
      >
        {copied === shown.secret ? 'Copied' : 'Copy secret'}
      </button>
    </div>
  );
}

function Deliveries({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { client, tokens } = useSession();
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', tokens.mode, endpoint.webhook_id],
    queryFn: async () => {
      // The newest page is enough for a log.
      for await (const page of client.webhooks
        .deliveries(endpoint.webhook_id, { per_page: 50 })
        .pages())
        return page.data;
      return [];
    },
    // Keep polling while a delivery is still on its way.
    refetchInterval: (query) =>
      query.state.data?.some((delivery) => delivery.state === 'pending') ? 1000 : false,
  });
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">
        Deliveries to <code>{endpoint.url}</code>
      </h2>
      <button type="button" onClick={() => void deliveries.refetch()}>
        Refresh deliveries
      </button>
      {deliveries.isPending && <p>Loading…</p>}
      {deliveries.isError && <ApiError error={deliveries.error} />}
      {deliveries.data?.length === 0 && <p>No deliveries yet. Send a test event to see one.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <ul className="deliveries" aria-label="Deliveries">
          {deliveries.data.map((delivery) => (
            <DeliveryItem key={delivery.delivery_id} delivery={delivery} />
          ))}
        </ul>
      )}
    </section>
  );
}

function DeliveryItem({ delivery }: { delivery: WebhookDelivery }) {
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
