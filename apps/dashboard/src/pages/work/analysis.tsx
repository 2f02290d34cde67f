import type { Analysis, AnalysisResults } from '@sas/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getRouteApi, Link, useNavigate } from '@tanstack/react-router';
import { ApiError } from '../../api-error';
import { useSession } from '../../auth/session';
import {
  ConfirmButton,
  dateTime,
  Facts,
  interval,
  percent,
  Place,
  ProgressBar,
  pValue,
  Status,
  useLiveProgress,
  words,
} from './common';

const route = getRouteApi('/analyses/$analysisId');

/** One analysis: live progress while it runs, then its results, evidence and statistics. */
export function AnalysisPage() {
  const { analysisId } = route.useParams();
  const { client, tokens } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const key = ['analysis', tokens.mode, analysisId];
  const analysis = useQuery({ queryKey: key, queryFn: () => client.analyses.get(analysisId) });
  const live = useLiveProgress(analysis.data, analysisId, key, () => {
    void queryClient.invalidateQueries({ queryKey: ['analyses', tokens.mode] });
  });
  const data = analysis.data;
  const results = useQuery({
    queryKey: ['analysis-results', tokens.mode, analysisId],
    queryFn: () => client.analyses.results(analysisId),
    enabled: data?.status === 'completed',
  });
  const cancel = useMutation({
    mutationFn: () => client.analyses.cancel(analysisId),
    onSuccess: (cancelled) => queryClient.setQueryData(key, cancelled),
  });
  const remove = useMutation({
    mutationFn: () => client.analyses.delete(analysisId),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: key });
      await queryClient.invalidateQueries({ queryKey: ['analyses', tokens.mode] });
      await navigate({ to: '/analyses' });
    },
  });
  const running = data !== undefined && data.status !== 'completed' && data.status !== 'failed';
  const progress = Math.max(live ?? 0, data?.progress ?? 0);
  return (
    <>
      <p>
        <Link to="/analyses">← All analyses</Link>
      </p>
      <h1>
        Analysis <code>{analysisId}</code>
      </h1>
      {analysis.isPending && <p>Loading…</p>}
      {analysis.isError && <ApiError error={analysis.error} />}
      {data && (
        <>
          <section aria-labelledby="analysis-status">
            <h2 id="analysis-status">Status</h2>
            <p role="status">
              <Status value={data.status} />{' '}
              {running && `${words(data.current_step)}: following it live…`}
              {data.status === 'failed' &&
                `Failed${data.failure_reason ? `: ${words(data.failure_reason)}` : ''}${
                  data.failure_message ? ` (${data.failure_message})` : ''
                }.`}
              {data.status === 'completed' && 'Completed: the results are below.'}
            </p>
            <ProgressBar
              label="Analysis progress"
              value={data.status === 'completed' ? 100 : progress}
            />
            <Facts
              rows={[
                ['Target type', words(data.target_type)],
                ['Description', data.description],
                ['Depth', words(data.analysis_type)],
                ['Priority', data.priority],
                ['Created', dateTime(data.created_at)],
                ['Started', data.started_at && dateTime(data.started_at)],
                [
                  running ? 'Expected by' : 'Completed',
                  running ? dateTime(data.estimated_completion) : dateTime(data.completed_at),
                ],
                ['Processing time', data.processing_time],
                ['Batch', data.batch_id],
              ]}
            />
            <div className="actions">
              {running && (
                <button
                  type="button"
                  className="danger"
                  disabled={cancel.isPending}
                  onClick={() => cancel.mutate()}
                >
                  Cancel analysis
                </button>
              )}
              <ConfirmButton
                label="Delete analysis"
                question="Delete this analysis and its results for good?"
                confirmLabel="Yes, delete it"
                pending={remove.isPending}
                onConfirm={() => remove.mutate()}
              />
            </div>
            {cancel.isError && <ApiError error={cancel.error} />}
            {remove.isError && <ApiError error={remove.error} />}
          </section>
          <Material analysis={data} />
          {results.isError && <ApiError error={results.error} />}
          {results.data?.results && <Results envelope={results.data} />}
        </>
      )}
    </>
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
