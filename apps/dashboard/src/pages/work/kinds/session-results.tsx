import type { Session } from '@sas/sdk';
import { useSession } from '../../../auth/session';
import { BlobImage } from '../../../components/blob-image';
import { PlaceMap } from '../../../components/charts/place-map';
import { ColumnHeadings, Facts, FigureTable, Place } from '../common';
import { interval, percent, pValue, sample, words } from '../format';

/** A session's results once completed: descriptors, statistics, sketches, contributions. */
export function SessionResults({ work: session }: { work: Session }) {
  const { client } = useSession();
  const results = session.results;
  if (!results) return null;
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
                <Place {...results.coordinates} /> ({percent(results.coordinates.confidence)}{' '}
                confidence)
              </>
            ),
          ],
          ['Analyst', session.metadata.analyst_id],
        ]}
      />
      {results.coordinates && (
        <PlaceMap
          caption="The session's coordinates on the map"
          places={[{ ...results.coordinates, label: 'the coordinates', main: true }]}
        />
      )}
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
      <FigureTable
        caption="Statistics of the results"
        rows={[
          ['Hit rate, 95 % interval', interval(stats.confidence_interval)],
          ['p-value (by chance)', pValue(stats.p_value)],
          ['Sample size', sample(stats.sample_size, session.metadata.evidence, 'judged trials')],
          [
            'Accuracy (share of the target described)',
            percent(results.validation_metrics.accuracy),
          ],
          [
            'Reliability (share of the response correct)',
            percent(results.validation_metrics.reliability),
          ],
        ]}
      />
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
            <ColumnHeadings labels={['Analyst', 'Weight', 'Key insights']} numbers={['Weight']} />
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
