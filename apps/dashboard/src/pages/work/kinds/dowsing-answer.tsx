import type { DowsingQuery } from '@sas/sdk';
import { type MapPlace, PlaceMap } from '../../../components/charts/place-map';
import { ColumnHeadings, Facts, FigureTable, Place, TextList } from '../common';
import { interval, percent, pValue, sample, words } from '../format';

/** A dowsing query's answer once given: the statistics, the readings, the places. */
export function DowsingAnswer({ work: query }: { work: DowsingQuery }) {
  const result = query.result;
  if (!result) return null;
  const significance = result.statistical_significance;
  const variant = result.variant_result as Record<string, unknown> | undefined;
  const places: MapPlace[] = [
    ...(result.coordinates ? [{ ...result.coordinates, label: 'the place', main: true }] : []),
    ...result.locations.map((location, index) => ({
      latitude: location.coordinates.lat,
      longitude: location.coordinates.lng,
      label: `location ${index + 1}`,
    })),
  ];
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
                <Place {...result.coordinates} /> (±{' '}
                {Math.round(result.coordinates.accuracy_meters)} m)
              </>
            ),
          ],
        ]}
      />
      <PlaceMap
        caption={
          result.locations.length === 0
            ? 'The place on the map'
            : `${result.coordinates ? 'The place (cross) and the' : 'The'} locations on the map, numbered as in the table of locations`
        }
        places={places}
      />
      <h3>Statistics</h3>
      <FigureTable
        caption="Statistical significance"
        rows={[
          ['p-value (by chance)', pValue(significance.p_value)],
          ['Effect size', significance.effect_size.toFixed(2)],
          ['Sample size', sample(significance.sample_size, query.metadata.evidence, 'readings')],
        ]}
      />
      <TextList heading="Insights" items={result.additional_insights} />
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
            <ColumnHeadings
              labels={['Place', 'Confidence', '95 % interval', 'Energy', 'Depth', 'Materials']}
              numbers={['Confidence']}
            />
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
