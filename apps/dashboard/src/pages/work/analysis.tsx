import type { Analysis, AnalysisResults } from '@sas/sdk';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, Link } from '@tanstack/react-router';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import { dateTime, Facts, interval, percent, Place, pValue, Status, words } from './common';
import { failure, useWork, WorkPage, WorkStatus } from './detail';

const route = getRouteApi('/analyses/$analysisId');

/** One analysis: live progress while it runs, then its results, evidence and statistics. */
export function AnalysisPage() {
  const { analysisId } = route.useParams();
  const { client, tokens } = useSession();
  const work = useWork({
    kind: 'analysis',
    list: 'analyses',
    listPath: '/analyses',
    id: analysisId,
    get: () => client.analyses.get(analysisId),
    remove: () => client.analyses.delete(analysisId),
    cancel: { run: () => client.analyses.cancel(analysisId), returnsWork: true },
  });
  const results = useQuery({
    queryKey: ['analysis-results', tokens.mode, analysisId],
    queryFn: () => client.analyses.results(analysisId),
    enabled: work.query.data?.status === 'completed',
  });
  return (
    <WorkPage
      back={{ to: '/analyses', label: '← All analyses' }}
      title={
        <>
          Analysis <code>{analysisId}</code>
        </>
      }
      query={work.query}
    >
      {(data) => (
        <>
          <WorkStatus
            id="analysis-status"
            heading="Status"
            work={work}
            status={data.status}
            message={
              <>
                {work.running && `${words(data.current_step)}: following it live…`}
                {data.status === 'failed' && failure(data.failure_reason, data.failure_message)}
                {data.status === 'completed' && 'Completed: the results are below.'}
              </>
            }
            progressLabel="Analysis progress"
            facts={[
              ['Target type', words(data.target_type)],
              ['Description', data.description],
              ['Depth', words(data.analysis_type)],
              ['Priority', data.priority],
              ['Created', dateTime(data.created_at)],
              ['Started', data.started_at && dateTime(data.started_at)],
              [
                work.running ? 'Expected by' : 'Completed',
                work.running ? dateTime(data.estimated_completion) : dateTime(data.completed_at),
              ],
              ['Processing time', data.processing_time],
              ['Batch', data.batch_id],
            ]}
            noun="analysis"
            deleteQuestion="Delete this analysis and its results for good?"
          />
          <Material analysis={data} />
          {results.isError && <ApiError error={results.error} />}
          {results.data?.results && <Results envelope={results.data} />}
        </>
      )}
    </WorkPage>
  );
}

function Material({ analysis }: { analysis: Analysis }) {
  const material = analysis.reference_material;
  if (!material.coordinates && material.items.length === 0) return null;
  return (
    <section aria-labelledby="analysis-material">
      <h2 id="analysis-material">Reference material</h2>
      {material.coordinates && (
        <p>
          Target position:{' '}
          <Place
            latitude={material.coordinates.latitude}
            longitude={material.coordinates.longitude}
          />
        </p>
      )}
      {material.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Kind</th>
              <th scope="col">Status</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {material.items.map((item, index) => (
              <tr key={`${index}-${item.url}`}>
                <th scope="row" className="secret">
                  {item.url}
                </th>
                <td>{item.kind}</td>
                <td>
                  <Status value={item.status} />
                </td>
                <td>
                  {item.error ??
                    [
                      item.content_type,
                      item.width && item.height ? `${item.width}×${item.height}` : null,
                      item.pages ? `${item.pages} pages` : null,
                      item.exif?.captured_at ? `taken ${dateTime(item.exif.captured_at)}` : null,
                    ]
                      .filter(Boolean)
                      .join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Results({ envelope }: { envelope: AnalysisResults }) {
  const results = envelope.results!;
  const { metadata } = envelope;
  const components = metadata.score_components;
  return (
    <section aria-labelledby="analysis-results" data-testid="analysis-results">
      <h2 id="analysis-results">Results</h2>
      <p>{results.summary}</p>
      <Facts
        rows={[
          ['Confidence', percent(results.confidence_score)],
          ['Evidence', metadata.evidence && words(metadata.evidence)],
          ['Risk', words(results.risk_assessment.level)],
          [
            'Risk factors',
            results.risk_assessment.factors.length
              ? results.risk_assessment.factors.map(words).join(', ')
              : 'none',
          ],
          [
            'Engine',
            `${metadata.engine}${metadata.engine_version ? ` (${metadata.engine_version})` : ''}`,
          ],
          [
            'Material read',
            `${metadata.material_fetched} read, ${metadata.material_failed} failed`,
          ],
        ]}
      />
      <h3>Key findings</h3>
      <ul>
        {results.key_findings.map((finding) => (
          <li key={finding}>{finding}</li>
        ))}
      </ul>
      {results.descriptors.length > 0 && (
        <>
          <h3>Descriptors</h3>
          <ul className="work-descriptors">
            {results.descriptors.map((descriptor) => (
              <li key={descriptor}>{descriptor}</li>
            ))}
          </ul>
        </>
      )}
      {results.recommendations.length > 0 && (
        <>
          <h3>Recommendations</h3>
          <ul>
            {results.recommendations.map((recommendation) => (
              <li key={recommendation}>{recommendation}</li>
            ))}
          </ul>
        </>
      )}
      {components && (
        <>
          <h3>How the confidence was built</h3>
          <table>
            <caption className="visually-hidden">Score components</caption>
            <tbody>
              <tr>
                <th scope="row">Material</th>
                <td>{components.material === null ? '–' : percent(components.material)}</td>
              </tr>
              <tr>
                <th scope="row">Analyst agreement</th>
                <td>
                  {components.analyst_agreement === null
                    ? '–'
                    : percent(components.analyst_agreement)}
                </td>
              </tr>
              {components.judging && (
                <tr>
                  <th scope="row">Judged trials</th>
                  <td>
                    {components.judging.hits} hits of {components.judging.trials} (chance{' '}
                    {percent(components.judging.p0)}), p = {pValue(components.judging.p_value)}
                  </td>
                </tr>
              )}
              {components.verified && (
                <>
                  <tr>
                    <th scope="row">Verified outcomes</th>
                    <td>
                      {components.verified.hits} hits, {components.verified.partials} partial,{' '}
                      {components.verified.misses} misses of {components.verified.trials}
                    </td>
                  </tr>
                  <tr>
                    <th scope="row">Hit rate, 95 % interval</th>
                    <td>{interval(components.verified.confidence_interval)}</td>
                  </tr>
                  <tr>
                    <th scope="row">Chance</th>
                    <td>
                      {percent(components.verified.p0)} (
                      {components.verified.expected_hits.toFixed(1)} hits expected)
                    </td>
                  </tr>
                  <tr>
                    <th scope="row">p-value, effect size</th>
                    <td>
                      {pValue(components.verified.p_value)},{' '}
                      {components.verified.effect_size.toFixed(2)}
                    </td>
                  </tr>
                </>
              )}
            </tbody>
          </table>
        </>
      )}
      {metadata.earlier_work.length > 0 && (
        <>
          <h3>Earlier work cross-referenced</h3>
          <table>
            <thead>
              <tr>
                <th scope="col">Work</th>
                <th scope="col">Relation</th>
                <th scope="col" className="work-number">
                  Distance
                </th>
                <th scope="col" className="work-number">
                  Confidence
                </th>
              </tr>
            </thead>
            <tbody>
              {metadata.earlier_work.map((work) => (
                <tr key={work.id}>
                  <th scope="row">
                    {work.kind === 'session' ? (
                      <Link to="/sessions/$sessionId" params={{ sessionId: work.id }}>
                        <code>{work.id}</code>
                      </Link>
                    ) : (
                      <Link to="/analyses/$analysisId" params={{ analysisId: work.id }}>
                        <code>{work.id}</code>
                      </Link>
                    )}
                  </th>
                  <td>{words(work.relation)}</td>
                  <td className="work-number">
                    {work.distance_meters === null ? '–' : `${Math.round(work.distance_meters)} m`}
                  </td>
                  <td className="work-number">
                    {work.confidence_score === null ? '–' : percent(work.confidence_score)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
