import { describe, expect, it } from 'vitest';
import { checkImportRow, type FieldIssue } from './import-row.js';
import { parseIsoTimestamp } from './iso-timestamp.js';

const NOW = new Date('2026-06-01T12:00:00Z');

const MINIMAL = {
  external_id: 'case-1',
  type: 'remote_viewing',
  date: '2024-03-01T14:30:00Z',
  target: 'The lighthouse at the end of the pier',
};

const FULL = {
  ...MINIMAL,
  outcome: 'Described the tower and the light',
  confidence_score: 0.72,
  location: { latitude: 51.5, longitude: -0.12 },
  client: 'Harbour Trust',
  analysts: ['analyst-7', 'analyst-9'],
  process: { duration_minutes: 45, modality: 'crv', phases: ['cooldown', 'ideograms'] },
  results: { description: 'Tall white structure, rotating light' },
  descriptors: ['tall', 'white', 'light'],
  privacy_level: 'classified',
  verdict: 'hit',
  location_found: true,
  coordinates: { latitude: 51.501, longitude: -0.121 },
  verification: 'Site visit',
  independent_verification: true,
  accuracy_confirmed: true,
  verified_by: 'J. Smith',
  verified_at: '2024-03-05',
};

function issuesOf(row: unknown): FieldIssue[] {
  const checked = checkImportRow(row, NOW);
  if (checked.ok) throw new Error('expected the row to be refused');
  return checked.issues;
}

function fieldsOf(row: unknown): string[] {
  return issuesOf(row).map((issue) => issue.field);
}

describe('checkImportRow', () => {
  it('refuses line breaks and other control characters in short fields, naming each', () => {
    const issues = issuesOf({
      ...FULL,
      target: 'tower\n=cmd|calc',
      client: 'Harbour\tTrust',
      analysts: ['analyst-7', 'analyst\r9'],
      descriptors: ['tall', 'white\u001b'],
      verified_by: 'J.\u0085Smith',
      process: { modality: 'crv\u007f' },
    });
    expect(issues.map((issue) => issue.field)).toEqual([
      'target',
      'client',
      'analysts.1',
      'process.modality',
      'descriptors.1',
      'verified_by',
    ]);
    expect(new Set(issues.map((issue) => issue.issue))).toEqual(
      new Set(['must be one line of text: no line breaks, tabs or other control characters']),
    );
  });

  it('keeps line breaks and tabs in prose, and refuses other control characters there', () => {
    const prose = { ...FULL, outcome: 'Tower:\n\tlight', verification: 'Visit\r\nphotos' };
    const checked = checkImportRow({ ...prose, results: { description: 'Tall\nwhite' } }, NOW);
    expect(checked.ok).toBe(true);
    expect(fieldsOf({ ...prose, results: { description: 'bell\u0007' } })).toEqual([
      'results.description',
    ]);
  });

  it('takes a minimal row, everything optional empty', () => {
    const checked = checkImportRow(MINIMAL, NOW);
    expect(checked).toEqual({
      ok: true,
      row: {
        externalId: 'case-1',
        type: 'remote_viewing',
        date: new Date('2024-03-01T14:30:00Z'),
        target: MINIMAL.target,
        outcome: null,
        confidenceScore: null,
        location: null,
        client: null,
        analysts: [],
        durationMinutes: null,
        modality: null,
        phases: [],
        description: null,
        descriptors: [],
        classified: false,
        verified: null,
      },
    });
  });

  it('takes every field, the verified outcome among them', () => {
    const checked = checkImportRow(FULL, NOW);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.row).toMatchObject({
      confidenceScore: 0.72,
      location: { latitude: 51.5, longitude: -0.12 },
      analysts: ['analyst-7', 'analyst-9'],
      durationMinutes: 45,
      modality: 'crv',
      phases: ['cooldown', 'ideograms'],
      description: 'Tall white structure, rotating light',
      classified: true,
      verified: {
        verdict: 'hit',
        locationFound: true,
        coordinates: { latitude: 51.501, longitude: -0.121 },
        verification: 'Site visit',
        independentVerification: true,
        accuracyConfirmed: true,
        verifiedBy: 'J. Smith',
        verifiedAt: new Date('2024-03-05T00:00:00Z'),
      },
    });
  });

  it('reads null as left out, and private as not classified', () => {
    const checked = checkImportRow(
      { ...MINIMAL, outcome: null, location: null, analysts: null, privacy_level: 'private' },
      NOW,
    );
    expect(checked).toMatchObject({ ok: true, row: { outcome: null, classified: false } });
  });

  it('dates a verdict verified_at the row’s own date when it has none', () => {
    const checked = checkImportRow({ ...MINIMAL, verdict: 'miss', verified_by: 'QA' }, NOW);
    expect(checked).toMatchObject({
      ok: true,
      row: {
        verified: {
          verdict: 'miss',
          verifiedAt: new Date(MINIMAL.date),
          independentVerification: false,
          accuracyConfirmed: false,
          locationFound: null,
          coordinates: null,
        },
      },
    });
  });

  it.each(['external_id', 'type', 'date', 'target'])('requires %s', (field) => {
    const row: Record<string, unknown> = { ...MINIMAL };
    delete row[field];
    expect(issuesOf(row)).toEqual([{ field, issue: 'is required' }]);
  });

  it('names every field at fault, not only the first', () => {
    expect(fieldsOf({ ...MINIMAL, type: 'astrology', target: '', confidence_score: 2 })).toEqual([
      'type',
      'target',
      'confidence_score',
    ]);
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['an unknown type', { type: 'tarot' }, 'type', 'must be one of'],
    ['a blank external id', { external_id: '   ' }, 'external_id', 'must not be blank'],
    ['a long external id', { external_id: 'x'.repeat(201) }, 'external_id', '1 to 200'],
    ['a numeric external id', { external_id: 12 }, 'external_id', 'must be a string'],
    ['a long target', { target: 'x'.repeat(1001) }, 'target', '1 to 1000'],
    ['a NUL in the target', { target: 'a\u0000b' }, 'target', 'NUL'],
    ['a lone surrogate', { target: 'a\ud800b' }, 'target', 'well-formed Unicode'],
    ['a long outcome', { outcome: 'x'.repeat(5001) }, 'outcome', '1 to 5000'],
    ['a confidence above 1', { confidence_score: 1.5 }, 'confidence_score', '0 to 1'],
    ['a confidence as text', { confidence_score: '0.5' }, 'confidence_score', 'must be a number'],
    [
      'a latitude past the pole',
      { location: { latitude: 91, longitude: 0 } },
      'location.latitude',
      '-90 to 90',
    ],
    [
      'a longitude past 180',
      { location: { latitude: 0, longitude: 180.5 } },
      'location.longitude',
      '-180 to 180',
    ],
    [
      'a latitude alone',
      { location: { latitude: 10 } },
      'location.longitude',
      'is required with location.latitude',
    ],
    ['a location that is text', { location: '51.5,-0.1' }, 'location', 'must be an object'],
    [
      'an unknown location field',
      { location: { latitude: 1, longitude: 2, altitude: 3 } },
      'location.altitude',
      'is not a recognised field',
    ],
    ['a long client', { client: 'x'.repeat(201) }, 'client', '1 to 200'],
    ['analysts as text', { analysts: 'a;b' }, 'analysts', 'must be an array'],
    [
      'too many analysts',
      { analysts: Array.from({ length: 51 }, (_, i) => `a${i}`) },
      'analysts',
      'at most 50',
    ],
    ['an analyst that is a number', { analysts: ['a', 7] }, 'analysts.1', 'must be a string'],
    [
      'a fractional duration',
      { process: { duration_minutes: 4.5 } },
      'process.duration_minutes',
      'integer',
    ],
    [
      'a negative duration',
      { process: { duration_minutes: -1 } },
      'process.duration_minutes',
      'integer from 0',
    ],
    [
      'an unknown process field',
      { process: { tempo: 'fast' } },
      'process.tempo',
      'is not a recognised field',
    ],
    ['a blank phase', { process: { phases: ['a', ' '] } }, 'process.phases.1', 'must not be blank'],
    [
      'a long description',
      { results: { description: 'x'.repeat(10_001) } },
      'results.description',
      '1 to 10000',
    ],
    [
      'too many descriptors',
      { descriptors: Array.from({ length: 101 }, () => 'd') },
      'descriptors',
      'at most 100',
    ],
    [
      'an unknown privacy level',
      { privacy_level: 'secret' },
      'privacy_level',
      'must be one of public, private, classified',
    ],
    ['a date without its offset', { date: '2024-03-01T14:30:00' }, 'date', 'ISO 8601'],
    ['a date that does not exist', { date: '2023-02-29' }, 'date', 'ISO 8601'],
    ['a date in the future', { date: '2026-06-02T00:00:00Z' }, 'date', 'must not be in the future'],
    ['a date as a number', { date: 1709303400000 }, 'date', 'ISO 8601'],
    ['an unknown field', { colour: 'blue' }, 'colour', 'is not a recognised field'],
    [
      'an unknown verdict',
      { verdict: 'maybe', verified_by: 'QA' },
      'verdict',
      'must be one of hit, partial, miss',
    ],
    [
      'a verdict without verified_by',
      { verdict: 'hit' },
      'verified_by',
      'is required with verdict',
    ],
    [
      'a future verified_at',
      { verdict: 'hit', verified_by: 'QA', verified_at: '2027-01-01' },
      'verified_at',
      'must not be in the future',
    ],
    [
      'location_found as text',
      { verdict: 'hit', verified_by: 'QA', location_found: 'yes' },
      'location_found',
      'must be true or false',
    ],
    [
      'true coordinates off the globe',
      { verdict: 'hit', verified_by: 'QA', coordinates: { latitude: 0, longitude: 200 } },
      'coordinates.longitude',
      '-180 to 180',
    ],
  ])('refuses %s, naming the field', (_name, change, field, issue) => {
    const issues = issuesOf({ ...MINIMAL, ...change });
    expect(issues).toHaveLength(1);
    expect(issues[0]!.field).toBe(field);
    expect(issues[0]!.issue).toContain(issue);
  });

  it('refuses outcome fields without a verdict, each by name', () => {
    expect(
      fieldsOf({
        ...MINIMAL,
        location_found: true,
        coordinates: { latitude: 1, longitude: 2 },
        verification: 'x',
        independent_verification: true,
        accuracy_confirmed: false,
        verified_by: 'QA',
        verified_at: '2024-03-02',
      }),
    ).toEqual([
      'location_found',
      'coordinates',
      'verification',
      'independent_verification',
      'accuracy_confirmed',
      'verified_by',
      'verified_at',
    ]);
    expect(issuesOf({ ...MINIMAL, verified_by: 'QA' })[0]!.issue).toContain('only with a verdict');
  });

  it('takes outcome text without a verdict (it is a search field of its own)', () => {
    expect(checkImportRow({ ...MINIMAL, outcome: 'Nothing found' }, NOW).ok).toBe(true);
  });

  it('refuses a value that is not an object as a whole row', () => {
    for (const value of [null, 7, 'text', [MINIMAL]]) {
      expect(issuesOf(value)).toEqual([
        { field: 'row', issue: 'must be a JSON object (one case per line)' },
      ]);
    }
  });

  it('allows a date a little ahead of the clock (clocks disagree)', () => {
    expect(checkImportRow({ ...MINIMAL, date: '2026-06-01T12:04:00Z' }, NOW).ok).toBe(true);
  });
});

describe('parseIsoTimestamp', () => {
  it.each([
    ['2024-03-01', '2024-03-01T00:00:00.000Z'],
    ['2024-03-01T14:30Z', '2024-03-01T14:30:00.000Z'],
    ['2024-03-01T14:30:15.250Z', '2024-03-01T14:30:15.250Z'],
    ['2024-03-01T14:30:00+02:00', '2024-03-01T12:30:00.000Z'],
    ['2024-03-01T14:30:00-0530', '2024-03-01T20:00:00.000Z'],
    ['2024-03-01 14:30:00+00', '2024-03-01T14:30:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['0050-06-01', '0050-06-01T00:00:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseIsoTimestamp(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2024-03-01T14:30:00',
    '2024-13-01',
    '2024-04-31',
    '2023-02-29',
    '2024-03-01T24:00:00Z',
    '2024-03-01T14:60:00Z',
    '01/03/2024',
    '2024-3-1',
    'yesterday',
    '',
  ])('refuses %s', (text) => {
    expect(parseIsoTimestamp(text)).toBeNull();
  });
});
