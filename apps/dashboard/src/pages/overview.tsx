import type { Api, Dashboard } from '@sas/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError } from '../api-error';
import { useSession } from '../auth/session';
import { RatesChart } from '../components/charts/rates-chart';
import { UsageChart } from '../components/charts/usage-chart';
import { WebhookChart } from '../components/charts/webhook-chart';
import { WorkChart } from '../components/charts/work-chart';

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/** The v2 dashboard figures (GET /v2/analytics/dashboard) of this organisation and mode. */
export function OverviewPage() {
  const { can } = useSession();
  return can('admin') ? <OrganisationOverview /> : <MemberOverview />;
}

/** Analysts and judges land here: their own work, nothing of the organisation's. */
function MemberOverview() {
  const { can, profile } = useSession();
  return (
    <>
      <h1>Welcome, {profile.name}</h1>
      <ul>
        {can('analyst') && (
          <li>
            <Link to="/assignments">Your assignments</Link>: the work you are tasked with, blind.
          </li>
        )}
        {can('judge') && (
          <li>
            <Link to="/judging">Your judging tasks</Link>: rank candidates against the analysts'
            material.
          </li>
        )}
      </ul>
    </>
  );
}

function OrganisationOverview() {
  const { client, tokens } = useSession();
  const dashboard = useQuery({
    queryKey: ['dashboard', tokens.mode],
    queryFn: () => client.analytics.dashboard(),
  });
  return (
    <>
      <h1>Overview</h1>
      {dashboard.isPending && <p>Loading…</p>}
      {dashboard.isError && <ApiError error={dashboard.error} />}
      {dashboard.data && <Figures data={dashboard.data} />}
    </>
  );
}

function Figures({ data }: { data: Dashboard }) {
  const { usage, work, success_rates: rates, webhooks } = data;
  return (
    <>
      <p className="muted">
        As of {new Date(data.generated_at).toLocaleString()}; plan {usage.plan ?? 'unknown'}.
      </p>
      <section aria-labelledby="usage">
        <h2 id="usage">Usage against plan and tier</h2>
        <UsageChart usage={usage} />
        <table>
          <thead>
            <tr>
              <th scope="col">Window</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
              <th scope="col">Resets in</th>
            </tr>
          </thead>
          <tbody>
            {usage.requests.map((window) => (
              <tr key={window.window}>
                <th scope="row">Requests per {window.window}</th>
                <td>{window.used ?? '–'}</td>
                <td>{window.limit ?? 'unlimited'}</td>
                <td>{window.reset_seconds === null ? '–' : `${window.reset_seconds} s`}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Concurrent sessions / analyses</th>
              <td>
                {usage.concurrent.sessions} / {usage.concurrent.analyses}
              </td>
              <td>{usage.concurrent.limit ?? 'unknown'}</td>
              <td>–</td>
            </tr>
          </tbody>
        </table>
      </section>
      <section aria-labelledby="work">
        <h2 id="work">Work by status</h2>
        {work.length === 0 ? (
          <p>
            No work yet in this mode. Create an <Link to="/api-keys">API key</Link> and start a
            session or analysis from the API.
          </p>
        ) : (
          <>
            <WorkChart days={data.work_per_day} generatedAt={data.generated_at} />
            <table>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col">24 hours</th>
                  <th scope="col">7 days</th>
                  <th scope="col">30 days</th>
                </tr>
              </thead>
              <tbody>
                {work.map((row) => (
                  <tr key={`${row.kind}-${row.status}`}>
                    <th scope="row">{row.kind.replace('_', ' ')}</th>
                    <td>{row.status}</td>
                    <td>{row.counts.last_24h}</td>
                    <td>{row.counts.last_7d}</td>
                    <td>{row.counts.last_30d}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
      <section aria-labelledby="rates">
        <h2 id="rates">Success rates, last 30 days</h2>
        {rates.length === 0 ? (
          <p>No verified cases yet: record outcomes in the history to see hit rates here.</p>
        ) : (
          <>
            <RatesChart
              caption="Hit rate per type, last 30 days"
              groups={rates.map((group) => ({ label: group.type, rate: group.hit_rate }))}
            />
            <table>
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Cases</th>
                  <th scope="col">Hit rate</th>
                  <th scope="col">95 % interval</th>
                  <th scope="col">Chance</th>
                  <th scope="col">p-value</th>
                </tr>
              </thead>
              <tbody>
                {rates.map((group) => (
                  <RateRow
                    key={group.type}
                    type={group.type}
                    cases={group.cases}
                    rate={group.hit_rate}
                  />
                ))}
              </tbody>
            </table>
          </>
        )}
      </section>
      <section aria-labelledby="webhooks">
        <h2 id="webhooks">Webhook health, last 24 hours</h2>
        {webhooks.endpoints.length === 0 ? (
          <p>No webhook endpoints yet: add one through the API to be told when work completes.</p>
        ) : (
          <>
            <WebhookChart hours={webhooks.per_hour} />
            <ul>
              {webhooks.endpoints.map((endpoint) => (
                <li key={endpoint.webhook_id}>
                  {endpoint.url}: {endpoint.status}, {endpoint.succeeded} succeeded,{' '}
                  {endpoint.failed} failed, {endpoint.pending} pending
                  {endpoint.success_share !== null && ` (${percent(endpoint.success_share)})`}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </>
  );
}

function RateRow({ type, cases, rate }: { type: string; cases: number; rate: Api.RateDto | null }) {
  return (
    <tr>
      <th scope="row">{type.replace('_', ' ')}</th>
      <td>{cases}</td>
      {rate === null ? (
        <td colSpan={4}>no verified case</td>
      ) : (
        <>
          <td>
            {percent(rate.value)} ({rate.successes} of {rate.n})
          </td>
          <td>
            {percent(rate.ci_low)} – {percent(rate.ci_high)}
          </td>
          <td>{percent(rate.baseline)}</td>
          <td>{rate.p_value.toPrecision(2)}</td>
        </>
      )}
    </tr>
  );
}
