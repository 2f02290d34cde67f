// Dowsing queries under load (see bench/README.md, "Dowsing queries"): the body both servers
// answer in the dowsing-query/service and dowsing-query/reference phases, and the parity check
// that proves they do the same work before either is timed.

import { isDeepStrictEqual } from 'node:util';
import { TypeID } from 'typeid-js';

/**
 * POST /v1/dowsing/query: a `location` query inside a 500 m search circle at standard precision —
 * the API's own example of a located answer (at standard precision rather than high), so every
 * query writes its reading to dowsing_readings as well as its row and two events.
 */
export const DOWSING_QUERY_BODY = JSON.stringify({
  query_type: 'location',
  question: 'Where is the lost key?',
  context: { location: { latitude: 51.5074, longitude: -0.1278, radius_meters: 500 } },
  precision_level: 'standard',
});

const QUERY_ID = /^dowse_[0-9a-z]{26}$/;
const REQUEST_ID = /^req_[0-9a-z]{26}$/;

/** What differs between two queries of the same request by design: ids and times. */
const VOLATILE_BODY = ['query_id', 'created_at', 'completed_at'];
const VOLATILE_ROW = new Set(['id', 'created_at', 'updated_at', 'completed_at']);

const without = (object, keys) =>
  Object.fromEntries(Object.entries(object).filter(([key]) => !keys.has(key)));

/**
 * One query through each server, the same body: both answer 201 with the same body (ids and
 * times aside — the same organisation seed and request give the same engine answer), and leave
 * equivalent rows: the dowsing_queries row (every column but the id and times), its two outbox
 * rows (`dowsing.query_created`, `dowsing.query_completed`, with request_id = the answer's
 * X-Request-Id and the same data but for ids and times) and its dowsing_readings (same positions,
 * confidences and tenant, created_at = the query's). Throws naming the first difference.
 */
export async function dowsingParity({ apiBase, refBase, writeHeaders, db, request }) {
  const fail = (message) => {
    throw new Error(`parity check failed: dowsing query: ${message}`);
  };
  const answers = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'POST', '/v1/dowsing/query', {
        headers: writeHeaders,
        body: DOWSING_QUERY_BODY,
      }),
    ),
  );
  const names = ['service', 'reference'];
  for (const [i, answer] of answers.entries()) {
    if (answer.status !== 201)
      fail(`${names[i]}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    if (!REQUEST_ID.test(answer.headers.get('x-request-id') ?? ''))
      fail(`${names[i]}: no req_ X-Request-Id`);
    if (!QUERY_ID.test(answer.json.query_id ?? ''))
      fail(`${names[i]}: query_id ${JSON.stringify(answer.json.query_id)} is not a dowse_ id`);
    if (answer.json.status !== 'completed' || !answer.json.result?.coordinates)
      fail(`${names[i]}: not a completed, located answer: ${answer.text.slice(0, 300)}`);
  }
  const bodies = answers.map((answer) => without(answer.json, new Set(VOLATILE_BODY)));
  if (!isDeepStrictEqual(bodies[0], bodies[1]))
    fail(`bodies differ:\n  service   ${answers[0].text}\n  reference ${answers[1].text}`);

  const stored = [];
  for (const [i, answer] of answers.entries()) {
    const publicId = answer.json.query_id;
    const uuid = TypeID.fromString(publicId, 'dowse').toUUID();
    const {
      rows: [query],
    } = await db.query('SELECT * FROM dowsing_queries WHERE id = $1', [uuid]);
    if (!query) fail(`${names[i]}: no dowsing_queries row for ${publicId}`);
    if (query.created_at.toISOString() !== answer.json.created_at)
      fail(`${names[i]}: created_at of the row and of the answer differ`);
    const { rows: events } = await db.query(
      `SELECT * FROM events WHERE data->>'query_id' = $1 ORDER BY (data->>'sequence')::int`,
      [publicId],
    );
    if (events.map((e) => e.type).join() !== 'dowsing.query_created,dowsing.query_completed')
      fail(
        `${names[i]}: outbox rows ${JSON.stringify(events.map((e) => e.type))}, expected created then completed`,
      );
    for (const event of events)
      if (event.request_id !== answer.headers.get('x-request-id'))
        fail(`${names[i]}: ${event.type} request_id is not the response X-Request-Id`);
    const { rows: readings } = await db.query(
      `SELECT organization_id, mode, latitude, longitude, confidence, created_at = $2 AS at_query_time
         FROM dowsing_readings WHERE query_id = $1 ORDER BY id`,
      [uuid, query.created_at],
    );
    if (readings.length === 0) fail(`${names[i]}: the located answer wrote no dowsing_readings`);
    if (readings.some((r) => !r.at_query_time))
      fail(`${names[i]}: a reading's created_at is not its query's`);
    stored.push({
      query: without(query, VOLATILE_ROW),
      events: events.map((event) => ({
        ...without(event, new Set([...VOLATILE_ROW, 'request_id', 'relayed_at', 'data'])),
        data: Object.fromEntries(
          Object.entries(event.data).map(([key, value]) => [
            key,
            VOLATILE_BODY.includes(key) ? typeof value : value,
          ]),
        ),
      })),
      readings,
    });
  }
  for (const part of ['query', 'events', 'readings'])
    if (!isDeepStrictEqual(stored[0][part], stored[1][part]))
      fail(
        `${part} rows differ:\n  service   ${JSON.stringify(stored[0][part])}\n  reference ${JSON.stringify(stored[1][part])}`,
      );
  return { readingsPerQuery: stored[0].readings.length };
}
