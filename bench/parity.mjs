// The `parity` phase of bench/run.mjs: proves both servers do the same thing before timing them
// (see bench/README.md, "What both servers do"). The same read body, a tampered token refused,
// the same create (and submit) response shape and equivalent rows, and the dowsing query's
// (bench/dowsing.mjs).

import { isDeepStrictEqual } from 'node:util';
import { TypeID } from 'typeid-js';
import { dowsingParity } from './dowsing.mjs';
import { request, uuidOf } from './helpers.mjs';
import { CONFIG, CREATE_BODY, SUBMIT_BODY } from './run-config.mjs';

/** Proves both servers do the same thing before timing them. */
export async function parityCheck({ api, reference, sessionId, readHeaders, writeHeaders, db }) {
  const [apiBase, refBase] = [api.base, reference.base];
  const fail = (message) => {
    throw new Error(`parity check failed: ${message}`);
  };
  const REQUEST_ID = /^req_[0-9a-z]{26}$/;
  const reads = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'GET', `/v1/sessions/${sessionId}`, { headers: readHeaders }),
    ),
  );
  for (const [i, read] of reads.entries()) {
    if (read.status !== 200)
      fail(`${i ? 'reference' : 'service'} read: HTTP ${read.status} ${read.text.slice(0, 300)}`);
    if (!REQUEST_ID.test(read.headers.get('x-request-id') ?? ''))
      fail(`${i ? 'reference' : 'service'} read: no req_ X-Request-Id`);
  }
  if (!isDeepStrictEqual(reads[0].json, reads[1].json))
    fail(`read bodies differ:\n  service   ${reads[0].text}\n  reference ${reads[1].text}`);

  const denied = await request(refBase, 'GET', `/v1/sessions/${sessionId}`, {
    headers: { authorization: `Bearer ${readHeaders.authorization.slice(7, -4)}AAAA` },
  });
  if (denied.status !== 401) fail(`reference accepted a tampered token (HTTP ${denied.status})`);

  const creates = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'POST', '/v1/sessions', { headers: writeHeaders, body: CREATE_BODY }),
    ),
  );
  for (const [i, created] of creates.entries()) {
    if (created.status !== 201)
      fail(
        `${i ? 'reference' : 'service'} create: HTTP ${created.status} ${created.text.slice(0, 300)}`,
      );
  }
  const shape = (body) =>
    Object.entries(body).map(([key, value]) => [key, key === 'status' ? value : typeof value]);
  if (!isDeepStrictEqual(shape(creates[0].json), shape(creates[1].json)))
    fail(
      `create bodies differ in shape:\n  service   ${creates[0].text}\n  reference ${creates[1].text}`,
    );

  const volatile = new Set(['id', 'created_at', 'updated_at', 'estimated_completion']);
  const rows = [];
  for (const created of creates) {
    const { rows: events } = await db.query("SELECT * FROM events WHERE data->>'session_id' = $1", [
      created.json.session_id,
    ]);
    if (events.length !== 1)
      fail(`${created.json.session_id}: expected 1 outbox row, found ${events.length}`);
    const event = events[0];
    if (event.request_id !== created.headers.get('x-request-id'))
      fail('outbox row request_id is not the response X-Request-Id');
    const { rows: sessions } = await db.query('SELECT * FROM sessions WHERE id = $1', [
      uuidOf(created.json.session_id),
    ]);
    if (sessions.length !== 1) fail(`${created.json.session_id}: session row not found`);
    const strip = (row, extra = []) =>
      Object.fromEntries(
        Object.entries(row).filter(([key]) => !volatile.has(key) && !extra.includes(key)),
      );
    const data = { ...event.data };
    for (const key of ['session_id', 'created_at', 'estimated_completion'])
      data[key] = typeof data[key];
    rows.push({
      session: strip(sessions[0]),
      event: { ...strip(event, ['request_id', 'data']), data },
    });
  }
  if (!isDeepStrictEqual(rows[0], rows[1]))
    fail(
      `rows differ:\n  service   ${JSON.stringify(rows[0])}\n  reference ${JSON.stringify(rows[1])}`,
    );

  if (CONFIG.analyses.enabled) await submitParity({ apiBase, refBase, writeHeaders, db, fail });
  if (CONFIG.dowsing.enabled) await dowsingParity({ apiBase, refBase, writeHeaders, db, request });
}

/**
 * POST /v1/analysis/targets on both servers: 201 with the same body shape, equivalent `analyses`
 * and `events` rows (ids and times aside; the same request fingerprint, estimate and outbox data),
 * and the outbox row's request_id = the response's X-Request-Id.
 */
async function submitParity({ apiBase, refBase, writeHeaders, db, fail }) {
  const submits = await Promise.all(
    [apiBase, refBase].map((base) =>
      request(base, 'POST', '/v1/analysis/targets', { headers: writeHeaders, body: SUBMIT_BODY }),
    ),
  );
  for (const [i, submitted] of submits.entries()) {
    if (submitted.status !== 201)
      fail(
        `${i ? 'reference' : 'service'} submit: HTTP ${submitted.status} ${submitted.text.slice(0, 300)}`,
      );
  }
  const shape = (body) =>
    Object.entries(body).map(([key, value]) => [
      key,
      key === 'status' || key === 'priority' ? value : typeof value,
    ]);
  if (!isDeepStrictEqual(shape(submits[0].json), shape(submits[1].json)))
    fail(
      `submit bodies differ in shape:\n  service   ${submits[0].text}\n  reference ${submits[1].text}`,
    );
  const volatile = new Set(['id', 'created_at', 'updated_at', 'estimated_completion']);
  const strip = (row, extra = []) =>
    Object.fromEntries(
      Object.entries(row).filter(([key]) => !volatile.has(key) && !extra.includes(key)),
    );
  const rows = [];
  const estimates = [];
  for (const submitted of submits) {
    const publicId = submitted.json.analysis_id;
    const { rows: events } = await db.query(
      "SELECT * FROM events WHERE type = 'analysis.created' AND data->>'analysis_id' = $1",
      [publicId],
    );
    if (events.length !== 1) fail(`${publicId}: expected 1 outbox row, found ${events.length}`);
    const event = events[0];
    if (event.request_id !== submitted.headers.get('x-request-id'))
      fail('submit: outbox row request_id is not the response X-Request-Id');
    const { rows: analyses } = await db.query('SELECT * FROM analyses WHERE id = $1', [
      TypeID.fromString(publicId, 'anal').toUUID(),
    ]);
    if (analyses.length !== 1) fail(`${publicId}: analysis row not found`);
    const analysis = analyses[0];
    if (analysis.estimated_completion.toISOString() !== submitted.json.estimated_completion)
      fail(`${publicId}: estimated_completion of the row and of the answer differ`);
    estimates.push(analysis.estimated_completion - analysis.created_at);
    const data = { ...event.data };
    for (const key of ['analysis_id', 'created_at', 'estimated_completion'])
      data[key] = typeof data[key];
    rows.push({
      analysis: strip(analysis),
      event: { ...strip(event, ['request_id', 'data']), data },
    });
  }
  if (!isDeepStrictEqual(rows[0], rows[1]))
    fail(
      `analysis rows differ:\n  service   ${JSON.stringify(rows[0])}\n  reference ${JSON.stringify(rows[1])}`,
    );
  // The same estimate from the same queue: the row's estimated_completion − created_at (both
  // servers take their clock a few ms apart, before and after the estimate's queries).
  if (Math.abs(estimates[0] - estimates[1]) > 250)
    fail(
      `estimates differ: estimated_completion − created_at is ${estimates[0]} ms on the service, ${estimates[1]} ms on the reference`,
    );
}
