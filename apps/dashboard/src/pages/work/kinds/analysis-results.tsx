import type { Analysis, AnalysisResults } from '@sas/sdk';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError } from '../../../api-error';
import { useSession } from '../../../auth/session';
import { ColumnHeadings, Facts, FigureTable, Place, Status, TextList } from '../common';
import { dateTime, engine, interval, percent, pValue, words } from '../format';

/** What an analysis page shows below its status: the material, then the results once completed. */
export function AnalysisSections({ work: analysis }: { work: Analysis }) {
  const { client, tokens } = useSession();
  const results = useQuery({
    queryKey: ['analysis-results', tokens.mode, analysis.analysis_id],
    queryFn: () => client.analyses.results(analysis.analysis_id),
    enabled: analysis.status === 'completed',
  });
  return (
    <>
      <Material analysis={analysis} />
      {results.isError && <ApiError error={results.error} />}
      {results.data?.results && <Results envelope={results.data} />}
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
          Target position: <Place {...material.coordinates} />
        </p>
      )}
      {material.items.length > 0 && (
        <table>
          <ColumnHeadings labels={['Item', 'Kind', 'Status', 'Details']} />
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
          ['Engine', engine(metadata)],
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
      <TextList heading="Descriptors" items={results.descriptors} className="work-descriptors" />
      <TextList heading="Recommendations" items={results.recommendations} />
      {components && (
        <>
          <h3>How the confidence was built</h3>
          <FigureTable caption="Score components" rows={scoreRows(components)} />
        </>
      )}
      {metadata.earlier_work.length > 0 && (
        <>
          <h3>Earlier work cross-referenced</h3>
          <table>
            <ColumnHeadings
              labels={['Work', 'Relation', 'Distance', 'Confidence']}
              numbers={['Distance', 'Confidence']}
            />
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

type ScoreComponents = NonNullable<AnalysisResults['metadata']['score_components']>;

/** How the confidence was built: material, analysts' agreement, judged and verified trials. */
function scoreRows({ material, analyst_agreement, judging, verified }: ScoreComponents) {
  const rows: [string, string][] = [
    ['Material', material === null ? '–' : percent(material)],
    ['Analyst agreement', analyst_agreement === null ? '–' : percent(analyst_agreement)],
  ];
  if (judging) {
    rows.push([
      'Judged trials',
      `${judging.hits} hits of ${judging.trials} (chance ${percent(judging.p0)}), p = ${pValue(judging.p_value)}`,
    ]);
  }
  if (verified) {
    rows.push(
      [
        'Verified outcomes',
        `${verified.hits} hits, ${verified.partials} partial, ${verified.misses} misses of ${verified.trials}`,
      ],
      ['Hit rate, 95 % interval', interval(verified.confidence_interval)],
      ['Chance', `${percent(verified.p0)} (${verified.expected_hits.toFixed(1)} hits expected)`],
      ['p-value, effect size', `${pValue(verified.p_value)}, ${verified.effect_size.toFixed(2)}`],
    );
  }
  return rows;
}
