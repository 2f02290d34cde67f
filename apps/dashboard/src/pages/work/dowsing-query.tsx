import type { DowsingQuery } from '@sas/sdk';
import { getRouteApi } from '@tanstack/react-router';
import { useSession } from '../../auth/session';
import { dateTime, Facts, interval, percent, Place, pValue, words } from './common';
import { engine, failure, useWork, WorkPage, WorkStatus } from './detail';

const route = getRouteApi('/dowsing/$queryId');

/** One dowsing query: its answer, the readings and the statistics with their intervals. */
export function DowsingQueryPage() {
  const { queryId } = route.useParams();
  const { client } = useSession();
  // People answer pending queries (the analyst engine): useWork waits for them while the page is open.
  const work = useWork({
    kind: 'dowsing-query',
    list: 'dowsing-queries',
    listPath: '/dowsing',
    id: queryId,
    get: () => client.dowsing.get(queryId),
    remove: () => client.dowsing.delete(queryId),
  });
  return (
    <WorkPage
      back={{ to: '/dowsing', label: '← All dowsing queries' }}
      title="Dowsing query"
      query={work.query}
    >
      {(data) => (
        <>
          <WorkStatus
            id="query-status"
            heading={data.question}
            work={work}
            status={data.status}
            message={
              <>
                {data.status === 'pending' && 'Analysts are answering it; this page follows it.'}
                {data.status === 'failed' && failure(data.failure_reason, data.failure_message)}
              </>
            }
            facts={[
              ['Id', <code key="id">{data.query_id}</code>],
              ['Kind', words(data.query_type)],
              ['Variant', words(data.variant)],
              ['Precision', data.metadata.precision_level],
              ['Engine', engine(data.metadata)],
              ['Asked', dateTime(data.created_at)],
              ['Answered', data.completed_at && dateTime(data.completed_at)],
            ]}
            noun="query"
            deleteQuestion="Delete this query and its answer for good?"
          />
          {data.result && <Answer query={data} result={data.result} />}
        </>
      )}
    </WorkPage>
  );
}

function Answer({
  query,
  result,
}: {
  query: DowsingQuery;
  result: NonNullable<DowsingQuery['result']>;
}) {
  const significance = result.statistical_significance;
  const variant = result.variant_result as Record<string, unknown> | undefined;
  return (
    <section aria-labelledby="query-answer" data-testid="dowsing-answer">
      <h2 id="query-answer">Answer</h2>
      <p className="work-answer">
        <strong>{result.answer}</strong>
      </p>
      <Facts
        rows={[
          ['Confidence', percent(result.confidence)],
          ['95 % interval', interval(result.confidence_interval)],
          ['Chance baseline', percent(result.baseline)],
          ['Evidence', query.metadata.evidence && words(query.metadata.evidence)],
          [
            'Place',
            result.coordinates && (
              <>
                <Place
                  latitude={result.coordinates.latitude}
                  longitude={result.coordinates.longitude}
                />{' '}
                (± {Math.round(result.coordinates.accuracy_meters)} m)
              </>
            ),
          ],
        ]}
      />
      <h3>Statistics</h3>
      <table>
        <caption className="visually-hidden">Statistical significance</caption>
        <tbody>
          <tr>
            <th scope="row">p-value (by chance)</th>
            <td>{pValue(significance.p_value)}</td>
          </tr>
          <tr>
            <th scope="row">Effect size</th>
            <td>{significance.effect_size.toFixed(2)}</td>
          </tr>
          <tr>
            <th scope="row">Sample size</th>
            <td>
              {significance.sample_size}{' '}
              {query.metadata.evidence === 'verified' ? 'verified outcomes' : 'readings'}
            </td>
          </tr>
        </tbody>
      </table>
      {result.additional_insights.length > 0 && (
        <>
          <h3>Insights</h3>
          <ul>
            {result.additional_insights.map((insight) => (
              <li key={insight}>{insight}</li>
            ))}
          </ul>
        </>
      )}
      <h3>Readings</h3>
      <p>
        {words(result.chart_data.chart_type)}: {result.chart_data.interpretation}
      </p>
      <div
        className="work-readings"
        role="img"
        aria-label={`${result.chart_data.readings.length} readings: ${result.chart_data.readings
          .map((reading) => reading.toFixed(2))
          .join(', ')}`}
      >
        {result.chart_data.readings.map((reading, index) => (
          <span key={index} style={{ height: `${Math.max(0, Math.min(1, reading)) * 100}%` }} />
        ))}
      </div>
      {result.locations.length > 0 && (
        <>
          <h3>Locations</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Place</th>
                <th scope="col" className="work-number">
                  Confidence
                </th>
                <th scope="col">95 % interval</th>
                <th scope="col">Energy</th>
                <th scope="col">Depth</th>
                <th scope="col">Materials</th>
              </tr>
            </thead>
            <tbody>
              {result.locations.map((location, index) => (
                <tr key={index}>
                  <th scope="row">
                    <Place
                      latitude={location.coordinates.lat}
                      longitude={location.coordinates.lng}
                    />
                  </th>
                  <td className="work-number">{percent(location.confidence)}</td>
                  <td>{interval(location.confidence_interval)}</td>
                  <td>{location.energy_signature}</td>
                  <td>{location.depth_meters === null ? '–' : `${location.depth_meters} m`}</td>
                  <td>{location.material_composition.join(', ') || '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {variant && (
        <>
          <h3>{words(query.variant)} details</h3>
          <Facts
            rows={Object.entries(variant).map(([name, value]) => [
              words(name),
              typeof value === 'object' ? (
                <code key={name}>{JSON.stringify(value)}</code>
              ) : (
                String(value)
              ),
            ])}
          />
        </>
      )}
    </section>
  );
}
