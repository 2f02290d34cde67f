import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId, toPublicId } from '#common';
import { Sql } from '#database';
import { TestClient } from './support/client.js';
import { createOrganization } from './support/factories.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

/**
 * Verified outcomes are the top of the evidence ladder (docs/statistics.md,
 * "Verified outcomes"): once an organisation records what really happened on
 * its cases, the next work of that kind rests its statistics on them — and
 * only its own, in its own mode.
 */

let stack: Stack;
let client: TestClient;
let sql: Sql;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  client = await TestClient.for(stack);
  sql = stack.api.get(Sql);
});
afterAll(async () => {
  await stack?.close();
});

// ---- The statistics, written out here independently of the service's code.

function choose(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/** P(X ≥ hits) for independent trials with chances `ps`, by summing over every outcome (small n). */
function tailByEnumeration(hits: number, ps: readonly number[]): number {
  let tail = 0;
  for (let mask = 0; mask < 1 << ps.length; mask++) {
    let probability = 1;
    let count = 0;
    ps.forEach((p, i) => {
      const hit = (mask >> i) & 1;
      count += hit;
      probability *= hit ? p : 1 - p;
    });
    if (count >= hits) tail += probability;
  }
  return tail;
}

function binomialTail(hits: number, n: number, p: number): number {
  let tail = 0;
  for (let k = hits; k <= n; k++) tail += choose(n, k) * p ** k * (1 - p) ** (n - k);
  return tail;
}

function wilson(hits: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = hits / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [hits === 0 ? 0 : centre - half, hits === n ? 1 : centre + half];
}

function expectInterval(actual: number[], expected: [number, number]): void {
  expect(actual[0]).toBeCloseTo(expected[0], 5);
  expect(actual[1]).toBeCloseTo(expected[1], 5);
}

// ---- Helpers.

/** The public id of the case a finished piece of work became (written by trigger). */
async function caseOf(kind: 'dowsing' | 'analysis' | 'session', publicId: string): Promise<string> {
  return waitFor(async () => {
    const [row] = await sql.rows<{ id: string }>(
      'SELECT id FROM history_cases WHERE source_id = $1',
      [parsePublicId(kind, publicId)],
    );
    return row ? toPublicId('history', row.id) : null;
  });
}

/** A bearer token or an API key (the sandbox's, here). */
type Credential = { token: string } | { apiKey: string };

async function verify(
  caseId: string,
  verdict: 'hit' | 'partial' | 'miss',
  credential: Credential,
): Promise<void> {
  const response = await client.put(`/v1/history/${caseId}/outcome`, {
    ...credential,
    json: { verdict, verified_by: 'history-evidence e2e' },
  });
  expect(response.status).toBe(200);
  expect(response.body.verdict).toBe(verdict);
}

/** Asks a dowsing query (v1) and reads it back as v2 shows it, with its statistics. */
async function ask(credential: Credential, body: Record<string, unknown>) {
  const asked = await client.post('/v1/dowsing/query', { ...credential, json: body });
  expect(asked.status).toBe(201);
  expect(asked.body.status).toBe('completed');
  const read = await client.get(`/v2/dowsing/queries/${asked.body.query_id}`, credential);
  expect(read.status).toBe(200);
  return read.body;
}

function yesNo(question: string) {
  return { query_type: 'yes_no', question };
}

describe('dowsing queries rest on verified outcomes of their query type', () => {
  let token: Credential;
  let sandbox: Credential;
  let otherToken: Credential;

  beforeAll(async () => {
    const org = await createOrganization(stack, client);
    token = { token: await org.token() };
    sandbox = { apiKey: await org.apiKey(undefined, 'test') };
    const other = await createOrganization(stack, client);
    otherToken = { token: await other.token() };
  });

  it('records every answered query as a case with its chance baseline, and uses verdicts from then on', async () => {
    const first = await ask(token, yesNo('Is there water under the north field?'));
    expect(first.metadata.evidence).toBe('prior');
    expect(first.result.statistical_significance.sample_size).toBe(12); // the readings

    const answered = [first];
    for (const field of ['south', 'east', 'west', 'old orchard']) {
      answered.push(await ask(token, yesNo(`Is there water under the ${field} field?`)));
    }
    const cases = await Promise.all(answered.map((q) => caseOf('dowsing', q.query_id)));
    const stored = await sql.rows<{ type: string; subtype: string; chance_baseline: number }>(
      `SELECT type, subtype, chance_baseline FROM history_cases WHERE id = ANY($1::uuid[])`,
      [cases.map((id) => parsePublicId('history', id))],
    );
    expect(stored).toHaveLength(5);
    for (const row of stored) {
      expect(row).toMatchObject({ type: 'dowsing', subtype: 'yes_no' });
      expect(row.chance_baseline).toBeCloseTo(1 / 3, 6);
    }

    // 3 hits, 1 partial, 1 miss.
    await verify(cases[0]!, 'hit', token);
    await verify(cases[1]!, 'hit', token);
    await verify(cases[2]!, 'partial', token);
    await verify(cases[3]!, 'miss', token);
    await verify(cases[4]!, 'hit', token);

    const again = await ask(token, yesNo('Is there water under the north field?'));
    expect(again.metadata.evidence).toBe('verified');
    const stats = again.result.statistical_significance;
    expect(stats.sample_size).toBe(5);
    // The partial counts as a miss: P(X ≥ 3 | 5, 1/3) = (10·4 + 5·2 + 1)/243.
    expect(stats.p_value).toBeCloseTo(51 / 243, 5);
    expect(stats.p_value).toBeCloseTo(binomialTail(3, 5, 1 / 3), 5);
    // Stouffer's z / √n, one baseline: (3 − 5/3)/√(5·⅓·⅔) / √5.
    expect(stats.effect_size).toBeCloseTo((3 - 5 / 3) / Math.sqrt((5 * 2) / 9) / Math.sqrt(5), 5);
    expect(again.result.confidence).toBeCloseTo((3 + 2 / 3) / 7, 5);
    expectInterval(again.result.confidence_interval, wilson(3, 5));
    expect(again.result.baseline).toBeCloseTo(1 / 3, 6);
    expect(again.result.additional_insights[1]).toMatch(
      /^Based on 5 verified outcomes of your organisation's yes_no queries: 3 hits \(and 1 partial, counted as a miss\) where chance expects 1\.67, p = 0\.21 /,
    );
    // The readings and the answer are what they were: only the evidence changed.
    expect(again.result.answer).toBe(first.result.answer);
    expect(again.result.chart_data.readings).toEqual(first.result.chart_data.readings);
    const [row] = await sql.rows<{ evidence: string }>(
      'SELECT evidence FROM dowsing_queries WHERE id = $1',
      [parsePublicId('dowsing', again.query_id)],
    );
    expect(row!.evidence).toBe('verified');

    // v1 says so too.
    const v1 = await client.get(`/v1/dowsing/queries/${again.query_id}`, token);
    expect(v1.body.metadata.evidence).toBe('verified');
    expect(v1.body.result.confidence).toBe(again.result.confidence);
  });

  it('tests verified cases of different baselines against each one’s own chance', async () => {
    // Information queries: 4 options (p0 ¼) and the compass sectors (p0 ⅛).
    const four = await ask(token, {
      query_type: 'information',
      question: 'Which well?',
      context: { parameters: { options: ['a', 'b', 'c', 'd'] } },
    });
    const compass = await ask(token, { query_type: 'information', question: 'Which way?' });
    expect([four.result.baseline, compass.result.baseline]).toEqual([0.25, 0.125]);
    await verify(await caseOf('dowsing', four.query_id), 'hit', token);
    await verify(await caseOf('dowsing', compass.query_id), 'miss', token);

    const next = await ask(token, { query_type: 'information', question: 'Which door?' });
    expect(next.metadata.evidence).toBe('verified');
    expect(next.result.statistical_significance.sample_size).toBe(2);
    // P(X ≥ 1) = 1 − ¾·⅞.
    expect(next.result.statistical_significance.p_value).toBeCloseTo(1 - 0.75 * 0.875, 5);
    expect(next.result.statistical_significance.p_value).toBeCloseTo(
      tailByEnumeration(1, [0.25, 0.125]),
      5,
    );
    // Calibrated towards the mean baseline (¼ + ⅛)/2.
    expect(next.result.confidence).toBeCloseTo((1 + 2 * 0.1875) / 4, 5);
    // The yes/no record is still its own: five cases.
    const yes = await ask(token, yesNo('Is there oil under the east field?'));
    expect(yes.result.statistical_significance.sample_size).toBe(5);
    // And a location query has no verified cases yet.
    const where = await ask(token, {
      query_type: 'location',
      question: 'Where is the key?',
      context: { location: { latitude: 51.5, longitude: -0.12, radius_meters: 300 } },
    });
    expect(where.metadata.evidence).toBe('prior');

    // A batch reads each query type's record once and answers every item from its own.
    const batch = await client.post('/v2/dowsing/batch', {
      ...token,
      json: {
        queries: [
          { variant: 'query', query_type: 'yes_no', question: 'Oil under the west field?' },
          { variant: 'query', query_type: 'information', question: 'Which gate?' },
          { variant: 'query', query_type: 'yes_no', question: 'Oil under the south field?' },
        ],
      },
    });
    expect(batch.status).toBe(201);
    expect(
      batch.body.queries.map((q: { metadata: { evidence: string }; result: any }) => [
        q.metadata.evidence,
        q.result.statistical_significance.sample_size,
      ]),
    ).toEqual([
      ['verified', 5],
      ['verified', 2],
      ['verified', 5],
    ]);
  });

  it('counts neither another organisation’s verdicts nor the sandbox’s', async () => {
    // Another organisation: its own query is at the prior, and its verdicts do not reach us.
    const theirs = await ask(otherToken, yesNo('Is there water under the north field?'));
    expect(theirs.metadata.evidence).toBe('prior');
    const theirCase = await caseOf('dowsing', theirs.query_id);
    await verify(theirCase, 'hit', otherToken);
    // Our case is not theirs to verify.
    const ours = await ask(token, yesNo('Is there gold under the barn?'));
    const ourCase = await caseOf('dowsing', ours.query_id);
    const refused = await client.put(`/v1/history/${ourCase}/outcome`, {
      ...otherToken,
      json: { verdict: 'hit', verified_by: 'someone else' },
    });
    expect(refused.status).toBe(404);

    // Our sandbox: live verdicts do not reach it, and its verdicts stay in it.
    const inSandbox = await ask(sandbox, yesNo('Is there water under the north field?'));
    expect(inSandbox.metadata.evidence).toBe('prior');
    const alsoInSandbox = await ask(sandbox, yesNo('Is there water under the south field?'));
    for (const query of [inSandbox, alsoInSandbox]) {
      await verify(await caseOf('dowsing', query.query_id), 'hit', sandbox);
    }

    const live = await ask(token, yesNo('Is there water under the north field?'));
    expect(live.metadata.evidence).toBe('verified');
    expect(live.result.statistical_significance.sample_size).toBe(5);
    expect(live.result.statistical_significance.p_value).toBeCloseTo(51 / 243, 5);

    const test = await ask(sandbox, yesNo('Is there water under the north field?'));
    expect(test.metadata.evidence).toBe('verified');
    expect(test.result.statistical_significance.sample_size).toBe(2);
    expect(test.result.statistical_significance.p_value).toBeCloseTo(1 / 9, 5);

    const theirsAgain = await ask(otherToken, yesNo('Is there water under the north field?'));
    expect(theirsAgain.result.statistical_significance.sample_size).toBe(1);
    expect(theirsAgain.result.statistical_significance.p_value).toBeCloseTo(1 / 3, 5);
  });
});

describe('analyses rest on verified outcomes of their analysis type', () => {
  it('takes the confidence of a quick_scan from the verified quick scans, and says so', async () => {
    const org = await createOrganization(stack, client);
    const credential = { token: await org.token() };
    const { token } = credential;
    const run = async (description: string, analysisType = 'quick_scan') => {
      const submitted = await client.post('/v1/analysis/targets', {
        token,
        json: { target_type: 'object', analysis_type: analysisType, description },
      });
      expect(submitted.status).toBe(201);
      const id = submitted.body.analysis_id;
      await waitFor(async () => {
        const status = await client.get(`/v1/analysis/${id}`, { token });
        return status.body.status === 'completed' ? status : null;
      });
      const results = await client.get(`/v1/analysis/${id}/results`, { token });
      expect(results.status).toBe(200);
      return results.body;
    };

    const first = await run('The brass compass in the attic');
    expect(first.metadata.evidence).toBe('prior');
    expect(first.metadata.score_components.verified).toBeNull();
    expect(first.results.risk_assessment.factors).toContain('prior_only_evidence');
    const second = await run('The silver ring under the stairs');
    for (const done of [first, second]) {
      await verify(await caseOf('analysis', done.analysis_id), 'hit', credential);
    }

    const third = await run('The clock behind the panel');
    expect(third.metadata.evidence).toBe('verified');
    // A quick scan judges no analysts, so its cases carry no baseline: p0 = ¼.
    // Two hits of two: (2 + ½)/(2 + 2); P(X ≥ 2 | 2, ¼) = 1/16.
    expect(third.results.confidence_score).toBeCloseTo(2.5 / 4, 5);
    expect(third.metadata.score_components.verified).toMatchObject({
      trials: 2,
      hits: 2,
      partials: 0,
      misses: 0,
      expected_hits: 0.5,
      p0: 0.25,
    });
    expect(third.metadata.score_components.verified.p_value).toBeCloseTo(1 / 16, 5);
    expectInterval(third.metadata.score_components.verified.confidence_interval, wilson(2, 2));
    expect(third.results.risk_assessment.factors).not.toContain('prior_only_evidence');
    expect(third.results.key_findings).toContain(
      "Based on 2 verified outcomes of your organisation's quick_scan analyses: 2 hits where chance expects 0.5, " +
        'p = 0.063 (exact, one-sided). The confidence is their calibrated hit rate.',
    );
    expect(third.results.summary).toMatch(/rests on 2 verified outcomes/);
    const [row] = await sql.rows<{ evidence: string }>(
      'SELECT evidence FROM analyses WHERE id = $1',
      [parsePublicId('analysis', third.analysis_id)],
    );
    expect(row!.evidence).toBe('verified');

    // Another analysis type has its own record: none yet.
    const comprehensive = await run('The clock behind the panel', 'comprehensive');
    expect(comprehensive.metadata.evidence).toBe('prior');
  });
});

describe('sessions rest on verified outcomes of their session type', () => {
  it('takes the confidence and the statistical validation from the verified sessions of the type', async () => {
    const org = await createOrganization(stack, client);
    const credential = { token: await org.token() };
    const { token } = credential;
    const run = async (type: string, target: string, modality?: string) => {
      const created = await client.post('/v2/sessions/create', {
        token,
        json: { type, target, ...(modality && { modality }) },
      });
      expect(created.status).toBe(201);
      return waitFor(async () => {
        const read = await client.get(`/v2/sessions/${created.body.session_id}`, { token });
        return read.body.status === 'completed' ? read.body : null;
      });
    };

    const first = await run('remote_viewing', 'The object in envelope 1', 'visual');
    const second = await run('remote_viewing', 'The object in envelope 2');
    expect(first.metadata.evidence).toBe('prior');
    expect(first.results.statistical_validation.sample_size).toBe(12); // one analyst's trials
    await verify(await caseOf('session', first.session_id), 'hit', credential);
    await verify(await caseOf('session', second.session_id), 'miss', credential);

    // Any modality counts, and so does none.
    const third = await run('remote_viewing', 'The object in envelope 3', 'auditory');
    expect(third.metadata.evidence).toBe('verified');
    const validation = third.results.statistical_validation;
    expect(validation.sample_size).toBe(2);
    // P(X ≥ 1 | 2, ¼) = 1 − ¾².
    expect(validation.p_value).toBeCloseTo(1 - 0.75 ** 2, 5);
    expectInterval(validation.confidence_interval, wilson(1, 2));
    expect(third.results.confidence_score).toBeCloseTo((1 + 0.5) / 4, 5);
    const v1 = await client.get(`/v1/sessions/${third.session_id}/results`, { token });
    expect(v1.body.metadata.evidence).toBe('verified');
    expect(v1.body.results.confidence_score).toBe(third.results.confidence_score);

    // A dowsing session counts neither remote viewing nor the organisation's dowsing queries.
    const query = await ask(credential, yesNo('Is the envelope under the desk?'));
    await verify(await caseOf('dowsing', query.query_id), 'hit', credential);
    const dowsing = await run('dowsing', 'The object in envelope 4');
    expect(dowsing.metadata.evidence).toBe('prior');
  });
});
