import type { Session } from '@sas/sdk';
import { getRouteApi } from '@tanstack/react-router';
import { BlobImage } from '../../components/blob-image';
import { useSession } from '../../auth/session';
import { dateTime, Facts, interval, percent, Place, pValue, words } from './common';
import { engine, failure, useWork, WorkPage, WorkStatus } from './detail';

const route = getRouteApi('/sessions/$sessionId');

/** One session: live progress while it runs, then its results and their statistics. */
export function SessionPage() {
  const { sessionId } = route.useParams();
  const { client } = useSession();
  const work = useWork({
    kind: 'session',
    list: 'sessions',
    listPath: '/sessions',
    id: sessionId,
    get: () => client.sessions.get(sessionId),
    remove: () => client.sessions.delete(sessionId),
    cancel: { run: () => client.sessions.cancel(sessionId), returnsWork: false },
  });
  return (
    <WorkPage
      back={{ to: '/sessions', label: '← All sessions' }}
      title={
        <>
          Session <code>{sessionId}</code>
        </>
      }
      query={work.query}
    >
      {(data) => (
        <>
          <WorkStatus
            id="session-status"
            heading="Status"
            work={work}
            status={data.status}
            message={
              <>
                {work.running && `${words(data.current_phase)}: following it live…`}
                {data.status === 'failed' && failure(data.failure_reason)}
                {data.status === 'completed' && 'Completed: the results are below.'}
              </>
            }
            progressLabel="Session progress"
            facts={[
              ['Type', words(data.type)],
              ['Modality', data.modality && words(data.modality)],
              ['Duration', `${data.duration_minutes} minutes`],
              ['Privacy', words(data.privacy_level)],
              ['Engine', engine(data.metadata)],
              ['Analysts', data.analyst_count],
              ['Created', dateTime(data.created_at)],
              [
                work.running ? 'Expected by' : 'Completed',
                work.running ? dateTime(data.estimated_completion) : dateTime(data.completed_at),
              ],
              ['Merged from', data.merged_from?.join(', ')],
            ]}
            noun="session"
            deleteQuestion="Delete this session and its results for good?"
          />
          {data.results && <Results session={data} results={data.results} />}
        </>
      )}
    </WorkPage>
  );
}

function Results({
  session,
  results,
}: {
  session: Session;
  results: NonNullable<Session['results']>;
}) {
  const { client } = useSession();
  const stats = results.statistical_validation;
  return (
    <section aria-labelledby="session-results" data-testid="session-results">
      <h2 id="session-results">Results</h2>
      <Facts
        rows={[
          ['Confidence', percent(results.confidence_score)],
          ['Evidence', session.metadata.evidence && words(session.metadata.evidence)],
          [
            'Coordinates',
            results.coordinates && (
              <>
                <Place
                  latitude={results.coordinates.latitude}
                  longitude={results.coordinates.longitude}
                />{' '}
                ({percent(results.coordinates.confidence)} confidence)
              </>
            ),
          ],
          ['Analyst', session.metadata.analyst_id],
        ]}
      />
      <h3>Descriptors</h3>
      {results.descriptors.length === 0 ? (
        <p>No descriptors.</p>
      ) : (
        <ul className="work-descriptors">
          {results.descriptors.map((descriptor) => (
            <li key={descriptor}>{descriptor}</li>
          ))}
        </ul>
      )}
      <h3>Statistics</h3>
      <table>
        <caption className="visually-hidden">Statistics of the results</caption>
        <tbody>
          <tr>
            <th scope="row">Hit rate, 95 % interval</th>
            <td>{interval(stats.confidence_interval)}</td>
          </tr>
          <tr>
            <th scope="row">p-value (by chance)</th>
            <td>{pValue(stats.p_value)}</td>
          </tr>
          <tr>
            <th scope="row">Sample size</th>
            <td>
              {stats.sample_size}{' '}
              {session.metadata.evidence === 'verified' ? 'verified outcomes' : 'judged trials'}
            </td>
          </tr>
          <tr>
            <th scope="row">Accuracy (share of the target described)</th>
            <td>{percent(results.validation_metrics.accuracy)}</td>
          </tr>
          <tr>
            <th scope="row">Reliability (share of the response correct)</th>
            <td>{percent(results.validation_metrics.reliability)}</td>
          </tr>
        </tbody>
      </table>
      <h3>Sketches</h3>
      {results.sketches.length === 0 ? (
        <p>No sketches.</p>
      ) : (
        <ul className="work-sketches">
          {results.sketches.map((sketch) => {
            const file = sketch.url.split('/').pop() ?? '';
            return (
              <li key={sketch.url}>
                <figure>
                  <BlobImage
                    queryKey={['session-sketch', session.session_id, file]}
                    load={() => client.sessions.sketch(session.session_id, file)}
                    alt={sketch.description || `Sketch ${file}`}
                    className="work-sketch"
                  />
                  <figcaption>
                    {sketch.description} <span className="muted">({file})</span>
                  </figcaption>
                </figure>
              </li>
            );
          })}
        </ul>
      )}
      {results.collaborative_insights.length > 0 && (
        <>
          <h3>Analysts' contributions</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Analyst</th>
                <th scope="col" className="work-number">
                  Weight
                </th>
                <th scope="col">Key insights</th>
              </tr>
            </thead>
            <tbody>
              {results.collaborative_insights.map((insight) => (
                <tr key={insight.analyst_id}>
                  <th scope="row">
                    <code>{insight.analyst_id}</code>
                  </th>
                  <td className="work-number">{percent(insight.contribution_weight)}</td>
                  <td>{insight.key_insights.join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
